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
//!
//! Once plans have matched [`PIDS_AFTER`] rows, the rows of `B` get pattern ids
//! ([`RowPids`]): consecutive rows of `B` whose column offsets `j - k` are equal share an
//! id. A row of `B` whose id is the plan's then has the plan's offsets (its run of equal
//! neighbours holds the row the plan learnt), so its columns need not be read: the check
//! of a stencil row shrinks from every product's column to one id per row of `B`.

use alloc::vec::Vec;

use super::owned::Out;
use super::rows::Ctx;
use super::stages::Bin;
use crate::{Index, RowOrder, Scalar};

/// The most products a plan holds (the dense accumulator's rows up to this upper bound
/// are learnt). A 27-point stencil squared has 729, a band of 39 squared 1521, a dense
/// block of 48 squared 2304.
pub(crate) const PLAN_MAX: usize = 4096;

/// The most accumulator rows learning waits after patterns that never matched.
pub(crate) const PLAN_WAIT_MAX: usize = 1024;

/// Plan matches after which the rows of `B` get pattern ids ([`RowPids`]).
pub(crate) const PIDS_AFTER: usize = 256;

/// Rows of `B` per block of [`RowPids`], computed when a row of the block is first asked.
const PID_BLOCK: usize = 1024;

/// Pattern ids of the rows of `B`, computed block by block as plans ask for them (so a
/// threaded piece pays only for the rows of `B` it references). Within a block, row `k`
/// shares the id of row `k - 1` exactly when both have the same length and the same
/// column offsets `j - k`, in storage order; the first row of a block takes a new id.
/// Ids are never reused, so equal ids mean equal offsets (equality along a run of
/// neighbours). `0` marks a row not computed yet.
pub(crate) struct RowPids {
    pid: Vec<u32>,
    next: u32,
}

impl RowPids {
    /// Ids for the `nrows` rows of `B`, all still to compute; `None` if they cannot be
    /// numbered in `u32` or allocated.
    fn new(nrows: usize) -> Option<Self> {
        // Every row may take a new id, and 0 is reserved.
        if nrows >= u32::MAX as usize {
            return None;
        }
        let mut pid = Vec::new();
        pid.try_reserve_exact(nrows).ok()?;
        pid.resize(nrows, 0);
        Some(RowPids { pid, next: 1 })
    }

    /// The id of row `k` of `B` (`0` past the end: no plan holds it).
    #[inline(always)]
    fn get<T: Scalar, I: Index>(&mut self, ctx: &Ctx<'_, '_, T, I>, k: usize) -> u32 {
        match self.pid.get(k) {
            Some(&0) => self.fill(ctx, k),
            Some(&p) => p,
            None => 0,
        }
    }

    /// Numbers the block of rows holding row `k` (below `pid.len()`); `k`'s id.
    #[cold]
    #[inline(never)]
    fn fill<T: Scalar, I: Index>(&mut self, ctx: &Ctx<'_, '_, T, I>, k: usize) -> u32 {
        let lo = k / PID_BLOCK * PID_BLOCK;
        let hi = (lo + PID_BLOCK).min(self.pid.len());
        let (bp, cols) = (ctx.b.row_ptr(), ctx.b.col_idx());
        let (ids, mut next) = (&mut self.pid[lo..hi], self.next);
        // Row `r` (its entries `s..e`) repeats row `r - 1` (`p..s`) when every column is
        // one more than the one `e - s` places before it: one branch per row, not per
        // column.
        let mut p = bp[lo].to_usize();
        for (r, id) in (lo..hi).zip(ids.iter_mut()) {
            let (s, e) = (bp[r].to_usize(), bp[r + 1].to_usize());
            let same = r > lo
                && e - s == s - p
                && cols[s..e]
                    .iter()
                    .zip(&cols[p..s])
                    .fold(0, |d, (&j, &q)| d | (j.to_usize().wrapping_sub(q.to_usize()) ^ 1))
                    == 0;
            next += u32::from(!same);
            *id = next - 1;
            p = s;
        }
        self.next = next;
        self.pid[k]
    }
}

/// Whether the columns `bc` of row `k` of `B` have the plan's offsets `bo` (as many):
/// for a run (consecutive columns on consecutive slots, `B` canonical, as a band's rows)
/// its first offset and its extent, two comparisons; else every offset, with one branch.
#[inline(always)]
fn columns_match<I: Index>(bc: &[I], bo: &[usize], k: usize, run: u32) -> bool {
    if run != u32::MAX {
        match (bc.first(), bc.last(), bo.first()) {
            (Some(&first), Some(&last), Some(&o)) => {
                let first = first.to_usize();
                first.wrapping_sub(k) == o && last.to_usize().wrapping_sub(first) == bc.len() - 1
            }
            _ => true,
        }
    } else {
        bc.iter().zip(bo).fold(0, |d, (&j, &o)| d | (j.to_usize().wrapping_sub(k) ^ o)) == 0
    }
}

/// Adds `x` times the values `bv` of a row of `B` into the slots of `out` it falls on:
/// `run` and on (consecutive slots), or `slot`'s. `false` if a slot is past `out`.
#[inline(always)]
fn add_products<T: Scalar>(x: T, bv: &[T], run: u32, slot: &[u32], out: &mut [T]) -> bool {
    if run != u32::MAX {
        let Some(d) = out.get_mut(run as usize..run as usize + bv.len()) else { return false };
        for (d, &y) in d.iter_mut().zip(bv) {
            *d += x * y;
        }
    } else {
        for (&y, &s) in bv.iter().zip(slot) {
            if let Some(d) = out.get_mut(s as usize) {
                *d += x * y;
            }
        }
    }
    true
}

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
    /// The pattern ids of the learnt row's rows of `B`, once [`RowPids`] exist.
    b_pid: Vec<u32>,
    /// Pattern ids of `B`'s rows, made after [`PIDS_AFTER`] matches in all.
    pids: Option<RowPids>,
    /// Matches of every plan so far (up to [`PIDS_AFTER`]).
    matched: usize,
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
            b_pid: Vec::new(),
            pids: None,
            matched: 0,
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
        col_idx: &mut impl Out<I>,
        vals: &mut impl Out<T>,
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
        if self.sum(ctx, base, ac, av, vals.tail(start)) {
            self.hits += 1;
            if self.matched < PIDS_AFTER {
                self.matched += 1;
                if self.matched == PIDS_AFTER {
                    self.pids = RowPids::new(ctx.b.nrows());
                    self.fill_b_pid(ctx, base);
                }
            }
            col_idx.extend_iter(self.out_off.iter().map(|&o| I::from_usize_unchecked(base.wrapping_add(o))));
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
        &mut self,
        ctx: &Ctx<'_, '_, T, I>,
        base: usize,
        ac: &[I],
        av: &[T],
        out: &mut [T],
    ) -> bool {
        if self.pids.is_some() && self.b_pid.len() == self.a_off.len() {
            return self.sum_by_ids(ctx, base, ac, av, out);
        }
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
            if !columns_match(bc, bo, k, run) || !add_products(x, bv, run, sl, out) {
                return false;
            }
        }
        true
    }

    /// [`RowPlan::sum`] with pattern ids: a row of `B` whose id is the plan's has the
    /// plan's column offsets (see [`RowPids`]), so only its values are read. A row of
    /// another id is checked by its columns, and if it matches, its id becomes the plan's
    /// (the rows of a block product repeat in place, each with an id of its own).
    fn sum_by_ids<T: Scalar, I: Index>(
        &mut self,
        ctx: &Ctx<'_, '_, T, I>,
        base: usize,
        ac: &[I],
        av: &[T],
        out: &mut [T],
    ) -> bool {
        let Some(pids) = self.pids.as_mut() else { return false };
        let (bp, b_vals) = (ctx.b.row_ptr(), ctx.b.vals());
        let (mut b_off, mut slot) = (&self.b_off[..], &self.slot[..]);
        let rows = ac
            .iter()
            .zip(av)
            .zip(self.a_off.iter().zip(self.b_pid.iter_mut()).zip(self.b_len.iter().zip(&self.run)));
        for ((&k, &x), ((&ao, id), (&bl, &run))) in rows {
            let k = k.to_usize();
            if k.wrapping_sub(base) != ao || slot.len() < bl || b_off.len() < bl {
                return false;
            }
            let (bo, rest_o) = b_off.split_at(bl);
            let (sl, rest_s) = slot.split_at(bl);
            (b_off, slot) = (rest_o, rest_s);
            let pid = pids.get(ctx, k);
            let bv = if pid == *id {
                // `k` has an id, so it is a row of `B`.
                let start = bp[k].to_usize();
                let Some(bv) = b_vals.get(start..start + bl) else { return false };
                bv
            } else {
                let (bc, bv) = ctx.b_row_at(k);
                if bc.len() != bl || !columns_match(bc, bo, k, run) {
                    return false;
                }
                *id = pid;
                bv
            };
            if !add_products(x, bv, run, sl, out) {
                return false;
            }
        }
        true
    }

    /// Bytes of the pattern ids of `B`'s rows, if made.
    pub(crate) fn id_bytes(&self) -> usize {
        self.pids.as_ref().map_or(0, |p| p.pid.len() * core::mem::size_of::<u32>())
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
        self.b_pid.clear();
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
            // A run needs consecutive columns, not only consecutive slots: a stride-2
            // stencil's rows fall on consecutive slots of its stride-2 output, and a
            // run there would fail `sum`'s column check on every later row.
            let slots = &self.slot[first_slot..];
            let consecutive = |w: &[u32]| w[1] == w[0] + 1;
            let cols_consecutive = match (bc.first(), bc.last()) {
                (Some(f), Some(l)) => l.to_usize().wrapping_sub(f.to_usize()) == bc.len() - 1,
                _ => false,
            };
            let run = canonical && cols_consecutive && slots.windows(2).all(consecutive);
            self.run.push(if run { slots[0] } else { u32::MAX });
        }
        self.fill_b_pid(ctx, base);
        Ok(())
    }

    /// The pattern ids of the rows of `B` that a matching row of `A` with first column
    /// `base` references (the learnt row's, or any row's the plan matched: their rows of
    /// `B` have the same offsets), if ids exist (else, or if they cannot be allocated,
    /// none: [`RowPlan::sum`] then checks every column).
    fn fill_b_pid<T: Scalar, I: Index>(&mut self, ctx: &Ctx<'_, '_, T, I>, base: usize) {
        self.b_pid.clear();
        let Some(p) = self.pids.as_mut() else { return };
        if self.b_pid.try_reserve(self.a_off.len()).is_err() {
            return;
        }
        for &ao in &self.a_off {
            self.b_pid.push(p.get(ctx, base.wrapping_add(ao)));
        }
    }
}
