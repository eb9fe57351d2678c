//! gdb's brace forms: `{TYPE} ADDR` (`UNOP_MEMVAL`) and `{a, b, c}` array literals
//! (`OP_ARRAY`, with the cast's type as the expected type under `(TYPE) {…}`).

use super::{Callee, Cls, Ev, V, builtins, classify, user};
use crate::error::Result;
use crate::expr::parser::{Expr, TypeName};
use crate::types::{Bound, Type, TypeKind, TypeRef};
use crate::value::Lval;

impl Ev<'_> {
    /// `{TYPE} ADDR`: the object of `TYPE` at the address `ADDR` designates (gdb's
    /// `value_as_address`: a pointer's or an integer's value, an array's own address).
    pub(super) fn memval(&self, t: &TypeName, x: &Expr) -> Result<V> {
        let ty = self.resolve(t)?;
        let v = self.coerce_ref(self.eval(x)?)?;
        if !self.side {
            return Ok(V::lazy_at(ty, 0));
        }
        let mut v = match classify(&v.ty) {
            Cls::Array(_) if !super::vector::is_vector(&v.ty) => self.decay(v)?,
            Cls::Func => match v.address() {
                Some(a) => return Ok(V::lazy_at(ty, a)),
                None => v,
            },
            _ => v,
        };
        let addr = match classify(&v.ty) {
            Cls::Int { .. } | Cls::Ptr(_) => self.int_of(&mut v)? as u64,
            Cls::Float(_) => {
                let f = self.float_of(&mut v)?;
                crate::extfloat::quad_to_int(f) as u64
            }
            _ => return Err(user("Value can't be converted to integer.")),
        };
        Ok(V::lazy_at(ty, addr))
    }

    /// gdb's `value_coerce_to_target`: an array kept nowhere in the program (`{7, 8, 9}`,
    /// `"ab"`) that must have an address is copied to memory the program allocates with
    /// `malloc` (gdb's `allocate_space_in_inferior`, which never frees it); its address.
    pub(super) fn coerce_to_target(&self, mut v: V) -> Result<u64> {
        let bytes = self.bytes(&mut v)?.to_vec();
        if !self.side {
            return Ok(0);
        }
        let malloc = match self.ctx.lookup_variable("malloc")? {
            Some(f) => V::from_value(f),
            None if !self.ctx.has_execution() => {
                return Err(user(
                    "evaluation of this expression requires the target program to be active",
                ));
            }
            None => {
                return Err(user(
                    "evaluation of this expression requires the program to have a function \"malloc\".",
                ));
            }
        };
        let void_ptr = Type::pointer_to(builtins().void.clone(), self.ptr_size());
        let callee = Callee {
            f: malloc,
            this: None,
            name: "malloc".into(),
            inlined: false,
        };
        let len = self.int(bytes.len() as i128);
        let mut p = self.call_values(vec![callee], vec![len], Some(&void_ptr))?;
        let addr = self.int_of(&mut p)? as u64;
        if addr == 0 {
            return Err(user(
                "No memory available to program: call to malloc failed",
            ));
        }
        self.ctx.write(&Lval::Memory(addr), &bytes)?;
        Ok(addr)
    }

    /// `{a, b, c}`; `expect` is the type of a cast around it.
    pub(super) fn array_literal(&self, items: &[Expr], expect: Option<&TypeRef>) -> Result<V> {
        if let Some(to) = expect {
            let ts = to.strip();
            match &ts.kind {
                TypeKind::Array { element, bound } => {
                    return self.array_into(items, to, element, bound);
                }
                TypeKind::Aggregate { members, .. } => {
                    return self.struct_into(items, to, members);
                }
                _ => {}
            }
        }
        if items.is_empty() {
            return Err(user("bad array bounds (0, -1)"));
        }
        let mut values = Vec::with_capacity(items.len());
        for e in items {
            let mut v = self.eval(e)?;
            if !v.optimized_out {
                self.fetch(&mut v)?;
            }
            values.push(v);
        }
        let size = values[0].ty.byte_size();
        if values.iter().any(|v| v.ty.byte_size() != size) {
            return Err(user("array elements must all be the same size"));
        }
        let mut bytes = Vec::with_capacity((size as usize).saturating_mul(values.len()));
        for mut v in values.iter().cloned() {
            let mut b = self.bytes(&mut v)?.to_vec();
            b.resize(size as usize, 0);
            bytes.extend_from_slice(&b);
        }
        let ty = Type::new(
            None,
            size.saturating_mul(values.len() as u64),
            TypeKind::Array {
                element: values[0].ty.clone(),
                bound: Bound::Count(values.len() as u64),
            },
        );
        Ok(V::new(ty, bytes))
    }

    /// `(TYPE[N]) {…}` or `(vector) {…}`: each value converted to the element type, the rest
    /// zero.
    fn array_into(
        &self,
        items: &[Expr],
        to: &TypeRef,
        element: &TypeRef,
        bound: &Bound,
    ) -> Result<V> {
        let esize = element.byte_size() as usize;
        let count = match bound {
            Bound::Count(n) => *n as usize,
            _ if esize > 0 => to.byte_size() as usize / esize,
            _ => 0,
        };
        let mut bytes = vec![0u8; esize.saturating_mul(count)];
        for (i, e) in items.iter().enumerate() {
            let v = self.expected(e, element)?;
            let mut v = self.cast(v, element)?;
            if i >= count {
                return Err(user("Too many array elements"));
            }
            let b = self.bytes(&mut v)?;
            let n = b.len().min(esize);
            bytes[i * esize..i * esize + n].copy_from_slice(&b[..n]);
        }
        Ok(V::new(to.clone(), bytes))
    }

    /// `(struct S) {…}`: the members in order (gdb's `evaluate_struct_tuple`).
    fn struct_into(
        &self,
        items: &[Expr],
        to: &TypeRef,
        members: &[crate::types::Member],
    ) -> Result<V> {
        let mut bytes = vec![0u8; to.byte_size() as usize];
        let mut fields = members.iter().filter(|m| !m.is_static);
        for e in items {
            let Some(m) = fields.next() else {
                return Err(user("too many initializers"));
            };
            let fty = m.ty.get().clone();
            let v = self.expected(e, &fty)?;
            let mut v = self.cast(v, &fty)?;
            let b = self.bytes(&mut v)?.to_vec();
            match m.bitfield {
                Some(bf) => {
                    let val = self.bitfield_fit(self.int_of(&mut v)?, bf.bit_size) as u128;
                    for k in 0..bf.bit_size {
                        let bit = bf.bit_offset + k;
                        let Some(byte) = bytes.get_mut((bit / 8) as usize) else {
                            break;
                        };
                        let on = (val >> k) & 1 == 1;
                        if on {
                            *byte |= 1 << (bit % 8);
                        } else {
                            *byte &= !(1 << (bit % 8));
                        }
                    }
                }
                None => {
                    let at = m.offset as usize;
                    let end = (at + b.len()).min(bytes.len());
                    if at < end {
                        bytes[at..end].copy_from_slice(&b[..end - at]);
                    }
                }
            }
        }
        Ok(V::new(to.clone(), bytes))
    }

    /// An element of a literal evaluated with an expected type (a nested `{…}`).
    fn expected(&self, e: &Expr, ty: &TypeRef) -> Result<V> {
        let mut v = match e {
            Expr::Array(items) => self.array_literal(items, Some(ty))?,
            _ => self.eval(e)?,
        };
        if !v.optimized_out && !matches!(v.lval, Lval::None) {
            self.fetch(&mut v)?;
        }
        Ok(v)
    }
}
