//! The ESC of one short row held in registers (thesis 7.4.2, and the ESC that 9.4.2 runs
//! on short rows): expand the row's candidate products into [`EscRow`], then sort,
//! compress and sum them without a pass through memory. AVX-512 has the instructions
//! this needs (two-source permutes, masked adds, `vpcompress`); on the other widths
//! [`esc_row`] returns `None` and the caller runs another method.

#[cfg(target_arch = "x86_64")]
use core::any::Any;

use crate::Scalar;
use crate::arch::Checked;

/// Most candidates an [`EscRow`] holds: two registers of 32-bit keys.
pub(crate) const ESC_REG_MAX: usize = 32;

/// Columns an [`EscRow`] may hold: each is packed with its 5-bit slot into a 32-bit key,
/// and the all-ones column marks padding.
pub(crate) const ESC_REG_COLS: usize = (1 << 27) - 1;

/// The candidate products of one short row, in expansion order: `cols[..n]` (each below
/// [`ESC_REG_COLS`]) and `vals[..n]`; the rest is ignored.
#[derive(Clone, Copy, Debug)]
pub(crate) struct EscRow<T> {
    pub cols: [u32; ESC_REG_MAX],
    pub vals: [T; ESC_REG_MAX],
    pub n: usize,
}

impl<T: Scalar> EscRow<T> {
    pub(crate) fn new() -> Self {
        EscRow { cols: [0; ESC_REG_MAX], vals: [T::ZERO; ESC_REG_MAX], n: 0 }
    }
}

/// Whether `isa` has a register ESC ([`esc_row`] returns `None` on the others): callers
/// ask before they expand a row for it.
#[inline]
pub(crate) fn has_esc_row(isa: Checked) -> bool {
    cfg!(target_arch = "x86_64") && isa.isa() == crate::Isa::Avx512
}

/// A short row's candidates and its result: what one register ESC reads and writes,
/// made once and reused row after row (nothing in it needs clearing between rows).
#[derive(Clone, Copy, Debug)]
pub(crate) struct EscBuf<T> {
    pub row: EscRow<T>,
    /// The row's distinct columns and their sums, at the front.
    pub cols: [u32; ESC_REG_MAX],
    pub vals: [T; ESC_REG_MAX],
}

impl<T: Scalar> EscBuf<T> {
    pub(crate) fn new() -> Self {
        EscBuf { row: EscRow::new(), cols: [0; ESC_REG_MAX], vals: [T::ZERO; ESC_REG_MAX] }
    }

    /// [`esc_row`] of `self.row` into `self.cols`/`self.vals`.
    #[inline]
    pub(crate) fn run(&mut self, isa: Checked, max_run: usize) -> Option<usize> {
        esc_row(isa, &self.row, max_run, &mut self.cols, &mut self.vals)
    }
}

/// Sorts `row`'s candidates by column, sums those of equal columns and writes the row —
/// its distinct columns ascending, each with its sum — to the front of `oc`/`ov`;
/// returns its length. `max_run` bounds how often one column occurs (the scan stops
/// at it; `ESC_REG_MAX` is always right). `None`, with nothing written, where `isa` has
/// no register ESC or `row` breaks its limits (`n > 32`, a column of [`ESC_REG_COLS`] or
/// more).
#[inline]
pub(crate) fn esc_row<T: Scalar>(
    isa: Checked,
    row: &EscRow<T>,
    max_run: usize,
    oc: &mut [u32; ESC_REG_MAX],
    ov: &mut [T; ESC_REG_MAX],
) -> Option<usize> {
    let _ = (row, max_run, &oc, &ov);
    match isa.isa() {
        #[cfg(target_arch = "x86_64")]
        crate::Isa::Avx512 => {
            if row.n > ESC_REG_MAX {
                return None;
            }
            let (row, ov): (&dyn Any, &mut dyn Any) = (row, ov);
            if let (Some(r), Some(v)) = (row.downcast_ref(), ov.downcast_mut()) {
                // SAFETY: `Checked` proves AVX-512 F/VL/BW/DQ and POPCNT.
                return Some(unsafe { crate::arch::x86_64::avx512::esc::esc_f64(r, max_run, oc, v) });
            }
            if let (Some(r), Some(v)) = (row.downcast_ref(), ov.downcast_mut()) {
                // SAFETY: as above.
                return Some(unsafe { crate::arch::x86_64::avx512::esc::esc_f32(r, max_run, oc, v) });
            }
            None
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    // The crate is `no_std` without the `std` feature; the test harness has it anyway.
    extern crate std;

    use super::*;
    use crate::Isa;
    use proptest::prelude::*;

    /// The row by a plain sort: distinct columns ascending, each with its sum.
    fn reference<T: Scalar>(row: &EscRow<T>) -> (std::vec::Vec<u32>, std::vec::Vec<T>) {
        let mut p: std::vec::Vec<(u32, T)> = (0..row.n).map(|k| (row.cols[k], row.vals[k])).collect();
        p.sort_by_key(|e| e.0);
        let (mut c, mut v) = (std::vec::Vec::new(), std::vec::Vec::<T>::new());
        for (col, val) in p {
            match c.last() {
                Some(&l) if l == col => *v.last_mut().expect("same length") += val,
                _ => {
                    c.push(col);
                    v.push(val);
                }
            }
        }
        (c, v)
    }

    /// Runs `row` on every width; those with a register ESC must give the reference
    /// (values are small integers, so every order of the additions is exact).
    fn check<T: Scalar>(row: &EscRow<T>, max_run: usize) -> Result<(), TestCaseError> {
        let (rc, rv) = reference(row);
        for isa in Isa::ALL {
            let Ok(c) = Checked::new(isa) else { continue };
            let (mut oc, mut ov) = ([u32::MAX; ESC_REG_MAX], [T::from_f64(-7.0); ESC_REG_MAX]);
            match esc_row(c, row, max_run, &mut oc, &mut ov) {
                Some(n) => {
                    prop_assert!(has_esc_row(c));
                    prop_assert_eq!(&oc[..n], &rc[..], "{:?} columns", isa);
                    prop_assert_eq!(&ov[..n], &rv[..], "{:?} values", isa);
                    // Nothing past the row is written.
                    prop_assert!(oc[n..].iter().all(|&x| x == u32::MAX));
                    prop_assert!(ov[n..].iter().all(|&x| x == T::from_f64(-7.0)));
                }
                None => prop_assert!(!has_esc_row(c), "{:?} has the register ESC", isa),
            }
        }
        Ok(())
    }

    fn row_of<T: Scalar>(cands: &[(u32, i8)]) -> EscRow<T> {
        let mut row = EscRow::<T>::new();
        for (k, &(c, v)) in cands.iter().enumerate() {
            row.cols[k] = c;
            row.vals[k] = T::from_f64(f64::from(v));
        }
        row.n = cands.len();
        row
    }

    /// The most times one column occurs.
    fn max_run(cands: &[(u32, i8)]) -> usize {
        cands.iter().map(|&(c, _)| cands.iter().filter(|e| e.0 == c).count()).max().unwrap_or(0)
    }

    proptest! {
        // Under Miri (portable only: no register ESC to check) proptest's failure file
        // needs `getcwd`, which isolation refuses.
        #[test]
        #[cfg_attr(miri, ignore = "needs getcwd; AVX-512 does not run under Miri")]
        fn register_esc_equals_sort_and_sum(
            cands in prop::collection::vec((0u32..40, any::<i8>()), 0..=ESC_REG_MAX),
            wide in any::<bool>(),
        ) {
            // Narrow columns give long runs; wide ones reach the largest column allowed.
            let cands: std::vec::Vec<(u32, i8)> = cands
                .into_iter()
                .map(|(c, v)| (if wide { (ESC_REG_COLS as u32 - 1).saturating_sub(c * 1_000_003) } else { c }, v))
                .collect();
            let run = max_run(&cands);
            check(&row_of::<f64>(&cands), run)?;
            check(&row_of::<f32>(&cands), run)?;
            check(&row_of::<f64>(&cands), ESC_REG_MAX)?;
            check(&row_of::<f32>(&cands), ESC_REG_MAX)?;
        }
    }

    #[test]
    fn one_column_thirty_two_times_and_negative_zero() {
        let all: std::vec::Vec<(u32, i8)> = (0..32).map(|k| (5, k as i8 - 3)).collect();
        check(&row_of::<f64>(&all), 32).expect("one run of 32");
        check(&row_of::<f32>(&all), 32).expect("one run of 32");
        // A lone -0.0 stays -0.0; -0.0 + -0.0 too.
        let mut row = EscRow::<f64>::new();
        (row.cols[..3]).copy_from_slice(&[9, 2, 9]);
        (row.vals[..3]).copy_from_slice(&[-0.0, -0.0, -0.0]);
        row.n = 3;
        if let Ok(c) = Checked::new(Isa::Avx512) {
            let (mut oc, mut ov) = ([0; ESC_REG_MAX], [1.0; ESC_REG_MAX]);
            assert_eq!(esc_row(c, &row, 2, &mut oc, &mut ov), Some(2));
            assert_eq!(&oc[..2], &[2, 9]);
            assert!(ov[..2].iter().all(|v| *v == 0.0 && v.is_sign_negative()));
        }
    }

    #[test]
    fn too_many_candidates_are_refused() {
        let mut row = EscRow::<f64>::new();
        let (mut oc, mut ov) = ([0; ESC_REG_MAX], [0.0; ESC_REG_MAX]);
        row.n = ESC_REG_MAX + 1;
        for isa in Isa::ALL {
            if let Ok(c) = Checked::new(isa) {
                assert_eq!(esc_row(c, &row, 1, &mut oc, &mut ov), None);
            }
        }
    }
}
