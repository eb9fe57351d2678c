//! A register file laid out by the architecture's table.

use crate::arch::ArchInfo;

/// Register values of one thread, indexed like `ArchInfo::regs`. `None` means the register is
/// not available on this machine (e.g. AVX-512 mask registers on a CPU without them).
///
/// The values are shared between copies until one is changed: a stop's registers are asked
/// for many times (frames, lines, conditions), and the table has some 2 KiB of them. The
/// vector is only as long as the highest register set: the general-purpose block read at
/// every stop takes a small allocation, not the whole table.
#[derive(Clone, Debug)]
pub struct Registers {
    pub arch: &'static ArchInfo,
    values: std::sync::Arc<Vec<Option<u128>>>,
}

impl Registers {
    pub fn new(arch: &'static ArchInfo) -> Self {
        Registers::with_room(arch, arch.regs.len())
    }

    /// No register set yet, with room for the first `n` of the table without growing.
    pub fn with_room(arch: &'static ArchInfo, n: usize) -> Self {
        Registers {
            arch,
            values: std::sync::Arc::new(vec![None; n.min(arch.regs.len())]),
        }
    }

    /// How many entries of the table the values span (registers past it are not set): room
    /// for [`Registers::with_room`] when building a block like this one.
    pub fn span(&self) -> usize {
        self.values.len()
    }

    pub fn get(&self, i: usize) -> Option<u128> {
        self.values.get(i).copied().flatten()
    }

    /// Low 64 bits of register `i`, 0 when unavailable.
    pub fn u64(&self, i: usize) -> u64 {
        self.get(i).unwrap_or(0) as u64
    }

    pub fn set(&mut self, i: usize, v: u128) {
        if i >= self.arch.regs.len() {
            return;
        }
        let values = std::sync::Arc::make_mut(&mut self.values);
        if values.len() <= i {
            values.resize(i + 1, None);
        }
        if let Some(slot) = values.get_mut(i) {
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::arch::x86_64::ARCH;

    #[test]
    fn a_block_grows_to_the_registers_set_and_copies_stay_apart() {
        let mut r = Registers::with_room(&ARCH, 2);
        assert_eq!(r.span(), 2);
        r.set(ARCH.pc, 0x1234);
        assert_eq!(r.span(), ARCH.pc + 1);
        assert_eq!(r.pc(), 0x1234);
        // Registers past the span, or never set, are not available.
        assert_eq!(r.get(0), None);
        assert_eq!(r.get(ARCH.regs.len() - 1), None);
        // Past the table: ignored.
        r.set(ARCH.regs.len(), 1);
        assert_eq!(r.span(), ARCH.pc + 1);
        let mut copy = r.clone();
        copy.set(ARCH.sp, 8);
        assert_eq!((copy.sp(), r.sp()), (8, 0));
        assert_eq!(Registers::new(&ARCH).span(), ARCH.regs.len());
    }
}
