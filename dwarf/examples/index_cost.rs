//! What the name index of a binary costs: resident memory (heap and mapped file pages) and
//! time after loading the DWARF, after building the index, and the sizes of what it keeps.
//!
//!     cargo run --release -p cohort-dwarf --example index_cost -- BINARY

use std::time::Instant;

fn rss() -> String {
    let s = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    s.lines()
        .filter(|l| l.starts_with("RssAnon") || l.starts_with("RssFile") || l.starts_with("VmHWM"))
        .map(|l| l.split_whitespace().take(2).collect::<Vec<_>>().join(" "))
        .collect::<Vec<_>>()
        .join(", ")
}

fn main() {
    let Some(path) = std::env::args().nth(1) else {
        eprintln!("usage: index_cost BINARY");
        std::process::exit(2);
    };
    let t = Instant::now();
    let f = match cohort_dwarf::loader::DebugFile::load(std::path::Path::new(&path)) {
        Ok(f) => f,
        Err(e) => {
            eprintln!("{path}: {e}");
            std::process::exit(1);
        }
    };
    println!(
        "loaded in {:?}: {} units; {}",
        t.elapsed(),
        f.units.len(),
        rss()
    );
    let t = Instant::now();
    let nfuncs = f.function_count();
    let (vars, types) = (f.all_variables(), f.all_types());
    println!("index built in {:?}; {}", t.elapsed(), rss());
    let fname: usize = f
        .all_functions()
        .map(|e| e.name.len() + e.linkage_name.as_ref().map_or(0, |l| l.len()))
        .sum();
    println!(
        "{} functions ({} bytes of names), {} variables, {} types",
        nfuncs,
        fname,
        vars.len(),
        types.len()
    );
    for (what, n, bytes) in f.index_stats() {
        println!("  {what}: {n} entries, {bytes} bytes");
    }
    let t = Instant::now();
    let mains = f.functions_named("main");
    println!(
        "functions_named(main): {} in {:?}",
        mains.len(),
        t.elapsed()
    );
}
