//! Row plans for the hybrid SpGEMM's dense-accumulator rows (thesis 9.4.2, stage 3):
//! rows of stencil and band products repeat one pattern shifted along the diagonal, so
//! the work of finding and sorting a row's distinct columns is done once per pattern.
//!
//! A [`RowPlan`] is learnt from a row `i` that the dense accumulator
//! ([`RowMethod::Spa`](super::RowMethod::Spa)) computed: the offsets `k - i` of the
//! columns `k` of row `i` of `A`, the lengths of the rows `k` of `B`, the offsets `j - k`
//! of their columns `j`, the sorted output columns as offsets `c - i`, and for every
//! product the output slot it falls on. A later row `i'` *matches* when its row of `A` and
//! the rows of `B` it references have the same lengths and offsets: its products then fall
//! on the same slots, shifted by `i' - i`. A matching row is computed straight into `C`:
//! its products summed into the slots in expansion order, its columns written as
//! `i' + offset`. No marker bits, no sort, no staging copy.
//!
//! The result is the dense accumulator's bit for bit: both sum a column's products in
//! expansion order, the accumulator from the first product and the plan from `-0.0`
//! (`-0.0 + v == v` exactly, for every `v`). The check reads the indices the accumulator
//! reads anyway and stops at the first difference, so a row that does not match costs a
//! few comparisons. A pattern that never matched before it was replaced makes the next
//! learning wait twice as many accumulator rows (up to [`PLAN_WAIT_MAX`]), so matrices
//! without repeating rows (graphs, random products) rarely pay for learning.

use alloc::vec::Vec;

use super::rows::Ctx;
use super::stages::Bin;
use crate::{Index, RowOrder, Scalar};

/// The most products a plan holds (the dense accumulator's rows up to this upper bound
/// are learnt). A 27-point stencil squared has 729, a band of 39 squared 1521, a dense
/// block of 48 squared 2304.
pub(crate) const PLAN_MAX: usize = 4096;

/// The most accumulator rows learning waits after patterns that never matched.
pub(crate) const PLAN_WAIT_MAX: usize = 1024;

/// One learnt row pattern; see the module docs.
pub(crate) struct RowPlan {
    /// `k - i` (wrapping) of each column `k` of the row of `A`.
    a_off: Vec<usize>,
    /// The length of each row `k` of `B`.
    b_len: Vec<usize>,
    /// `j - k` (wrapping) of each product's column `j`, in expansion order.
    b_off: Vec<usize>,
    /// Each product's output slot.
    slot: Vec<u32>,
    /// Per row of `B`: the first slot if its products fall on consecutive slots and its
    /// columns are consecutive (a band's rows), else `u32::MAX`.
    run: Vec<u32>,
    /// `c - i` (wrapping) of each output column, ascending.
    out_off: Vec<usize>,
    /// The row's upper bound and bin (the same for every matching row).
    pub(crate) ub: usize,
    pub(crate) bin: Bin,
    valid: bool,
    /// Matches since the plan was learnt.
    hits: usize,
    /// Accumulator rows to let pass before learning again, and the current wait.
    wait: usize,
    skip: usize,
}

impl RowPlan {
    pub(crate) fn new() -> Self {
        RowPlan {
            a_off: Vec::new(),
            b_len: Vec::new(),
            b_off: Vec::new(),
            slot: Vec::new(),
            run: Vec::new(),
            out_off: Vec::new(),
            ub: 0,
            bin: Bin::Empty,
            valid: false,
            hits: 0,
            wait: 1,
            skip: 0,
        }
    }

    /// Row `i` of `C` by the plan, appended to `col_idx`/`vals` (which have room for it,
    /// see [`RowPlan::len`]), if it matches; `false` (nothing appended) if not.
    pub(crate) fn apply<T: Scalar, I: Index>(
        &mut self,
        ctx: &Ctx<'_, '_, T, I>,
        i: usize,
        col_idx: &mut Vec<I>,
        vals: &mut Vec<T>,
    ) -> bool {
        if !self.valid {
            return false;
        }
        let (ac, av) = ctx.a_row(i);
        let Some(base) = ac.first().map(|k| k.to_usize()) else { return false };
        if ac.len() != self.a_off.len() {
            return false;
        }
        // The sums go straight to `vals` (the caller made room), each slot from `-0.0`;
        // a row that turns out not to match is cut off again.
        let start = vals.len();
        vals.resize(start + self.out_off.len(), -T::ZERO);
        if self.sum(ctx, base, ac, av, &mut vals[start..]) {
            self.hits += 1;
            col_idx.extend(self.out_off.iter().map(|&o| I::from_usize_unchecked(base.wrapping_add(o))));
            true
        } else {
            vals.truncate(start);
            false
        }
    }

    /// Checks the rows of `B` that the row of `A` (`ac`, `av`, first column `base`)
    /// references against the plan and sums their products into `out` (one value per
    /// slot); `false` at the first difference.
    fn sum<T: Scalar, I: Index>(
        &self,
        ctx: &Ctx<'_, '_, T, I>,
        base: usize,
        ac: &[I],
        av: &[T],
        out: &mut [T],
    ) -> bool {
        let (mut b_off, mut slot) = (&self.b_off[..], &self.slot[..]);
        let rows = ac.iter().zip(av).zip(self.a_off.iter().zip(&self.b_len).zip(&self.run));
        for ((&k, &x), ((&ao, &bl), &run)) in rows {
            let k = k.to_usize();
            if k.wrapping_sub(base) != ao {
                return false;
            }
            let (bc, bv) = ctx.b_row_at(k);
            if bc.len() != bl || b_off.len() < bl || slot.len() < bl {
                return false;
            }
            let (bo, rest_o) = b_off.split_at(bl);
            let (sl, rest_s) = slot.split_at(bl);
            (b_off, slot) = (rest_o, rest_s);
            if run != u32::MAX {
                // Consecutive columns onto consecutive slots: two comparisons and one
                // loop over the slots (a band's rows, as the accumulator's runs).
                let (Some(&first), Some(&last), Some(&o)) = (bc.first(), bc.last(), bo.first()) else {
                    continue;
                };
                let first = first.to_usize();
                if first.wrapping_sub(k) != o || last.to_usize().wrapping_sub(first) != bl - 1 {
                    return false;
                }
                let Some(d) = out.get_mut(run as usize..run as usize + bl) else { return false };
                for (d, &y) in d.iter_mut().zip(bv) {
                    *d += x * y;
                }
                continue;
            }
            // All offsets first (one branch per row of `B`), then the sums.
            let diff = bc.iter().zip(bo).fold(0, |d, (&j, &o)| d | (j.to_usize().wrapping_sub(k) ^ o));
            if diff != 0 {
                return false;
            }
            for (&y, &s) in bv.iter().zip(sl) {
                if let Some(d) = out.get_mut(s as usize) {
                    *d += x * y;
                }
            }
        }
        true
    }

    /// The length of a matching row.
    pub(crate) fn len(&self) -> usize {
        self.out_off.len()
    }

    /// Learns row `i`, which the dense accumulator computed as the sorted columns `row`
    /// (upper bound `ub`, bin `bin`), unless learning waits (see the module docs) or the
    /// row has more than [`PLAN_MAX`] products. An allocation failure leaves no plan.
    pub(crate) fn learn<T: Scalar, I: Index>(
        &mut self,
        ctx: &Ctx<'_, '_, T, I>,
        i: usize,
        ub: usize,
        bin: Bin,
        row: &[I],
    ) {
        if self.skip > 0 {
            self.skip -= 1;
            return;
        }
        if ub > PLAN_MAX {
            return;
        }
        if self.valid {
            // Replacing a plan: one that never matched doubles the wait.
            self.wait = if self.hits == 0 { (self.wait * 2).min(PLAN_WAIT_MAX) } else { 1 };
        }
        self.skip = self.wait - 1;
        self.valid = self.build(ctx, i, row).is_ok();
        (self.ub, self.bin, self.hits) = (ub, bin, 0);
    }

    fn build<T: Scalar, I: Index>(&mut self, ctx: &Ctx<'_, '_, T, I>, i: usize, row: &[I]) -> Result<(), ()> {
        let (ac, _) = ctx.a_row(i);
        let base = ac.first().ok_or(())?.to_usize();
        for v in [&mut self.a_off, &mut self.b_len, &mut self.b_off, &mut self.out_off] {
            v.clear();
        }
        self.slot.clear();
        self.run.clear();
        // In a canonical `B` a row's columns are consecutive iff its last minus its first
        // is its length minus one (what `sum` checks of a run).
        let canonical = ctx.b.row_order() == RowOrder::Canonical;
        self.a_off.try_reserve(ac.len()).map_err(|_| ())?;
        self.b_len.try_reserve(ac.len()).map_err(|_| ())?;
        self.run.try_reserve(ac.len()).map_err(|_| ())?;
        self.out_off.try_reserve(row.len()).map_err(|_| ())?;
        self.out_off.extend(row.iter().map(|c| c.to_usize().wrapping_sub(base)));
        for &k in ac {
            let k = k.to_usize();
            let (bc, _) = ctx.b_row_at(k);
            self.a_off.push(k.wrapping_sub(base));
            self.b_len.push(bc.len());
            self.b_off.try_reserve(bc.len()).map_err(|_| ())?;
            self.slot.try_reserve(bc.len()).map_err(|_| ())?;
            let first_slot = self.slot.len();
            for &j in bc {
                // Every product's column is in the row (the accumulator recorded it).
                let s = row.binary_search(&j).map_err(|_| ())?;
                self.b_off.push(j.to_usize().wrapping_sub(k));
                self.slot.push(u32::try_from(s).map_err(|_| ())?);
            }
            let slots = &self.slot[first_slot..];
            let consecutive = |w: &[u32]| w[1] == w[0] + 1;
            let run = canonical && !slots.is_empty() && slots.windows(2).all(consecutive);
            self.run.push(if run { slots[0] } else { u32::MAX });
        }
        Ok(())
    }
}
