//! A register file laid out by the architecture's table.

use crate::arch::ArchInfo;

/// Register values of one thread, indexed like `ArchInfo::regs`. `None` means the register is
/// not available on this machine (e.g. AVX-512 mask registers on a CPU without them).
///
/// The values are shared between copies until one is changed: a stop's registers are asked
/// for many times (frames, lines, conditions), and the table has some 2 KiB of them.
#[derive(Clone, Debug)]
pub struct Registers {
    pub arch: &'static ArchInfo,
    values: std::sync::Arc<Vec<Option<u128>>>,
}

impl Registers {
    pub fn new(arch: &'static ArchInfo) -> Self {
        Registers {
            arch,
            values: std::sync::Arc::new(vec![None; arch.regs.len()]),
        }
    }

    pub fn get(&self, i: usize) -> Option<u128> {
        self.values.get(i).copied().flatten()
    }

    /// Low 64 bits of register `i`, 0 when unavailable.
    pub fn u64(&self, i: usize) -> u64 {
        self.get(i).unwrap_or(0) as u64
    }

    pub fn set(&mut self, i: usize, v: u128) {
        if i < self.values.len()
            && let Some(slot) = std::sync::Arc::make_mut(&mut self.values).get_mut(i)
        {
            *slot = Some(v);
        }
    }

    pub fn pc(&self) -> u64 {
        self.u64(self.arch.pc)
    }

    pub fn sp(&self) -> u64 {
        self.u64(self.arch.sp)
    }

    pub fn set_pc(&mut self, pc: u64) {
        self.set(self.arch.pc, pc as u128);
    }

    /// Value of the register named `name`, if the table has it.
    pub fn by_name(&self, name: &str) -> Option<u128> {
        self.arch.reg_index(name).and_then(|i| self.get(i))
    }
}
