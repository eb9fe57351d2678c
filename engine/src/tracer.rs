//! The tracer thread: ptrace ties every tracee to the thread that attached it, so all work on
//! a process happens on one dedicated thread that owns the state (`S`, e.g. a `Session`), and
//! everyone else talks to it through a channel.

use std::sync::mpsc;
use std::thread::JoinHandle;

type Job<S> = Box<dyn FnOnce(&mut S) + Send>;

/// Handle to a dedicated tracer thread owning an `S`.
pub struct Tracer<S> {
    tx: Option<mpsc::Sender<Job<S>>>,
    join: Option<JoinHandle<()>>,
}

/// The tracer thread has ended (it panicked or was shut down).
#[derive(Debug, thiserror::Error)]
#[error("the tracer thread has stopped")]
pub struct TracerGone;

impl<S: 'static> Tracer<S> {
    /// Start the thread; `init` builds the state on it.
    pub fn spawn(name: &str, init: impl FnOnce() -> S + Send + 'static) -> std::io::Result<Self> {
        let (tx, rx) = mpsc::channel::<Job<S>>();
        let join = std::thread::Builder::new()
            .name(name.to_string())
            .spawn(move || {
                let mut state = init();
                while let Ok(job) = rx.recv() {
                    job(&mut state);
                }
                // `state` drops here, on the tracer thread: processes are killed or detached by
                // the thread that traces them.
            })?;
        Ok(Tracer {
            tx: Some(tx),
            join: Some(join),
        })
    }

    /// Run `f` on the tracer thread and wait for its result.
    pub fn call<R: Send + 'static>(
        &self,
        f: impl FnOnce(&mut S) -> R + Send + 'static,
    ) -> Result<R, TracerGone> {
        let (rtx, rrx) = mpsc::sync_channel(1);
        let job: Job<S> = Box::new(move |s| {
            let _ = rtx.send(f(s));
        });
        self.tx
            .as_ref()
            .ok_or(TracerGone)?
            .send(job)
            .map_err(|_| TracerGone)?;
        rrx.recv().map_err(|_| TracerGone)
    }
}

impl<S> Drop for Tracer<S> {
    fn drop(&mut self) {
        self.tx.take();
        if let Some(j) = self.join.take() {
            let _ = j.join();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn runs_on_one_thread() {
        let t = Tracer::spawn("t", || (0u32, std::thread::current().id())).unwrap();
        let a = t
            .call(|s| {
                s.0 += 1;
                s.1
            })
            .unwrap();
        let b = t
            .call(|s| {
                s.0 += 1;
                (s.1, s.0)
            })
            .unwrap();
        assert_eq!(a, b.0);
        assert_eq!(b.1, 2);
        assert_ne!(a, std::thread::current().id());
    }
}
