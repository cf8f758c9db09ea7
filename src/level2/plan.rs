//! SpMV plans: how to run `y = alpha * A * x + beta * y` many times on one CSR matrix,
//! converting it to CSR5 (thesis chapter 6, SpMV 8.5) where that pays instead of running
//! a conversion-free CSR method (8.3–8.4).
//!
//! [`CsrMethod::choose`] picks among the CSR methods only, because `SpMv for Csr` may not
//! allocate or convert. Yet on the irregular matrices CSR5 leads all of them (thesis
//! Fig. 8.9–8.11; here 1.3–1.8x the conversion-free pick on the AVX-512 machines of the
//! README), and its conversion costs about one SpMV (0.4–1.5 on the development VM),
//! which an iterative solver repays in its first products. [`SpmvChoice`] names the
//! choice between the two kinds; [`SpmvPlan`] (feature `alloc`) holds it with the CSR5
//! copy it needs and runs it.

use super::csr::{CsrMethod, RowSample};
use crate::formats::Csr;
use crate::{Index, Isa, Scalar};

/// How a plan runs SpMV on a CSR matrix: a CSR method on the matrix as it is, or CSR5
/// SpMV (Alg. 32) on a converted copy.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SpmvChoice {
    /// [`super::spmv_csr`] by this method, no conversion.
    Csr(CsrMethod),
    /// CSR5 with [`crate::Csr5Layout::new`]'s layout for the plan's [`Isa`].
    Csr5,
}

impl SpmvChoice {
    /// The choice for `a` on `isa` by a fixed O(1) rule (the row sample of
    /// [`CsrMethod::choose`], at most 576 reads), on AVX2 and AVX-512:
    ///
    /// - [`Csr5`](SpmvChoice::Csr5) when more than half of the sampled entries read `x`
    ///   far from the diagonal (past 256 KiB) and the sampled row lengths span at least
    ///   4 (uneven rows, or empty rows among rows of 4 or more): the irregular matrices
    ///   CSR5 was made for;
    /// - [`Csr5`](SpmvChoice::Csr5) when rows hold 16 entries or more on average and
    ///   fewer than 7 in 8 sampled neighbours are consecutive columns: long rows that
    ///   row-vector must gather (a 3D stencil, a FEM operator's rows of small clusters);
    /// - [`Csr`](SpmvChoice::Csr)`(`[`CsrMethod::choose`]`)` otherwise, and on portable
    ///   and NEON.
    ///
    /// Why (speedups over the row-scalar loop in one suite run per machine and width,
    /// `examples/suite.rs --only spmv`; the README has the tables):
    /// - On AVX-512, CSR5 led the conversion-free pick on `rmat`, `dc2_like` and
    ///   `lp_like` in both precisions on both machines measured: 1.10–1.79x on the AMD
    ///   development VM, 1.03–2.6x on the Xeon device host. On AVX2 `f32` (AMD VM, three
    ///   runs) it led on all three by 1.06–1.36x. On AVX2 `f64` tiles of one register
    ///   (4 lanes) lost `dc2_like` to the segmented sum in every run (0.55–0.98 against
    ///   0.82–1.29x row-scalar); with two registers per step
    ///   ([`omega_for`](crate::formats::csr5::omega_for): 8 lanes) CSR5 led `dc2_like`
    ///   (1.11 against 0.97x) and `rmat` (1.26 against 0.94x), and ran within 10% of
    ///   row-vector on `lp_like`, whose long rows stream at 70–80% of the read bandwidth
    ///   either way.
    /// - On `poisson3d_27` (27 entries a row in nine runs of three) CSR5 led row-vector
    ///   by 1.08–1.6x on every machine and width measured; on `banded`, `dense` and
    ///   `block_diagonal` (rows of one run) row-vector reads `x` by plain loads and led
    ///   CSR5 by up to 1.9x, as it did on the short rows of `poisson2d`.
    /// - Rows of one length that read `x` all over (`uniform_random`, 5 a row) went
    ///   either way by machine (row-vector 1.18x ahead on the AMD VM, CSR5 1.1–1.3x on
    ///   the Xeon host): CSR stays; [`SpmvPlan::tune`] measures instead.
    /// - The portable CSR5 kernel lost to the row loop on `rmat` and `dc2_like` (AMD VM:
    ///   0.44–0.92x row-scalar), so portable and NEON (not measured) keep CSR.
    pub fn choose<T: Scalar, I: Index>(a: &Csr<'_, T, I>, isa: Isa) -> SpmvChoice {
        if !matches!(isa, Isa::Avx2 | Isa::Avx512) {
            return SpmvChoice::Csr(CsrMethod::choose(a, isa));
        }
        // One row sample serves both rules.
        let s = RowSample::of(a);
        let irregular = s.scattered() && s.uneven();
        let long_gathered = a.nnz() >= 16 * a.nrows() && !s.runs();
        if irregular || long_gathered {
            SpmvChoice::Csr5
        } else {
            SpmvChoice::Csr(CsrMethod::choose_sampled(a, isa, Some(&s)))
        }
    }

    /// Short lower-case name: the [`CsrMethod::name`], or `"csr5"`.
    pub fn name(self) -> &'static str {
        match self {
            SpmvChoice::Csr(m) => m.name(),
            SpmvChoice::Csr5 => "csr5",
        }
    }
}

impl core::fmt::Display for SpmvChoice {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str(self.name())
    }
}

#[cfg(feature = "parallel")]
pub(crate) use owned::Run;
#[cfg(feature = "alloc")]
pub use owned::SpmvPlan;

#[cfg(feature = "alloc")]
mod owned {
    use alloc::boxed::Box;

    use super::{Csr, CsrMethod, Index, Isa, Scalar, SpmvChoice};
    use crate::DimError;
    use crate::arch::Checked;
    use crate::formats::Csr5Owned;
    use crate::level2::{SpMv, spmv_csr};

    /// A CSR matrix with the way to run its SpMV (feature `alloc`): a [`SpmvChoice`] on
    /// one [`Isa`], and for [`SpmvChoice::Csr5`] the CSR5 copy of the matrix (as much
    /// memory again as the CSR arrays, plus about 1–4% for the tile descriptors).
    ///
    /// Build it once, by rule ([`SpmvPlan::new`]) or by timing ([`SpmvPlan::tune`]), and
    /// run it through [`SpMv`] as often as needed; every run computes the same `y` as
    /// the CSR methods, within rounding (CSR5 adds in another order).
    ///
    /// ```
    /// use spblas::level2::{SpmvChoice, SpmvPlan};
    /// use spblas::{CsrOwned, Isa, SpMv};
    /// let a = CsrOwned::<f64, u32>::from_triplets(2, 3, &[(0, 0, 2.0), (0, 2, 1.0), (1, 1, 3.0)])?;
    /// let a = a.view();
    /// let plan = SpmvPlan::with_choice(&a, Isa::detect(), SpmvChoice::Csr5)?;
    /// let mut y = [0.0; 2];
    /// plan.spmv(1.0, &[1.0, 1.0, 1.0], 0.0, &mut y)?;
    /// assert_eq!(y, [3.0, 3.0]);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[derive(Clone, Debug)]
    pub struct SpmvPlan<'a, T, I> {
        a: Csr<'a, T, I>,
        isa: Isa,
        run: Run<T, I>,
    }

    /// What a plan runs, with what it needs (the CSR5 copy's headers boxed, so a CSR
    /// plan stays small).
    #[derive(Clone, Debug)]
    pub(crate) enum Run<T, I> {
        Csr(CsrMethod),
        Csr5(Box<Csr5Owned<T, I>>),
    }

    impl<'a, T: Scalar, I: Index> SpmvPlan<'a, T, I> {
        /// The plan of [`SpmvChoice::choose`] for `a` on `isa`, converting to CSR5 if it
        /// says so. Should the conversion be impossible (more rows than the index type
        /// holds without its top bit, the `tile_ptr` flag), the plan keeps
        /// [`CsrMethod::choose`]'s method.
        ///
        /// # Errors
        /// [`DimError::IsaUnavailable`] if this machine cannot run `isa`.
        pub fn new(a: &Csr<'a, T, I>, isa: Isa) -> Result<Self, DimError> {
            Checked::new(isa)?;
            let plan = SpmvPlan::with_choice(a, isa, SpmvChoice::choose(a, isa));
            plan.or_else(|_| SpmvPlan::with_choice(a, isa, SpmvChoice::Csr(CsrMethod::choose(a, isa))))
        }

        /// The plan that runs `choice` for `a` on `isa`.
        ///
        /// # Errors
        /// [`DimError::IsaUnavailable`] if this machine cannot run `isa`;
        /// [`DimError::Overflow`] (`"nrows"`) if `choice` is CSR5 and `a` has more rows
        /// than `I` holds without its top bit.
        pub fn with_choice(a: &Csr<'a, T, I>, isa: Isa, choice: SpmvChoice) -> Result<Self, DimError> {
            Checked::new(isa)?;
            let run = match choice {
                SpmvChoice::Csr(m) => Run::Csr(m),
                SpmvChoice::Csr5 => Run::Csr5(Box::new(Csr5Owned::from_csr_isa(a, isa).map_err(|_| {
                    DimError::Overflow { what: "nrows", value: a.nrows(), max: I::MAX_UNFLAGGED }
                })?)),
            };
            Ok(SpmvPlan { a: *a, isa, run })
        }

        /// The fastest plan for `a` on `isa` on this machine, by timing (feature `std`):
        /// [`CsrMethod::tune`] picks the fastest CSR method in `rounds` rounds, then
        /// that method and CSR5 (converted once) run alternately for `rounds` more
        /// rounds, and the smaller median wins (ties keep CSR, which needs no copy).
        /// Costs one conversion and about `7 * (rounds + 1)` SpMVs; `rounds` is clamped
        /// to 1..=64. `x` and `y` are the caller's; `y` is overwritten and holds `A x`
        /// on return.
        ///
        /// # Errors
        /// As [`spmv_csr`]: [`DimError::IsaUnavailable`] or [`DimError::Length`], before
        /// anything is timed or written.
        #[cfg(feature = "std")]
        pub fn tune(
            a: &Csr<'a, T, I>,
            isa: Isa,
            x: &[T],
            y: &mut [T],
            rounds: usize,
        ) -> Result<Self, DimError> {
            let method = CsrMethod::tune(a, isa, x, y, rounds)?;
            let csr = SpmvPlan::with_choice(a, isa, SpmvChoice::Csr(method))?;
            let Ok(csr5) = SpmvPlan::with_choice(a, isa, SpmvChoice::Csr5) else {
                return Ok(csr);
            };
            let k = crate::level2::csr::fastest(2, rounds, |k| {
                let plan = if k == 0 { &csr } else { &csr5 };
                plan.spmv(T::ONE, x, T::ZERO, y)
            })?;
            Ok(if k == 1 { csr5 } else { csr })
        }

        /// What the plan runs.
        pub fn choice(&self) -> SpmvChoice {
            match self.run {
                Run::Csr(m) => SpmvChoice::Csr(m),
                Run::Csr5(_) => SpmvChoice::Csr5,
            }
        }

        /// The [`Isa`] the plan was made for, which [`SpMv::spmv`] runs on.
        pub fn isa(&self) -> Isa {
            self.isa
        }

        /// The CSR matrix.
        pub fn matrix(&self) -> Csr<'a, T, I> {
            self.a
        }

        /// What the plan runs, with the CSR5 copy: for the drivers that run it their own
        /// way (`parallel::spmv_plan`).
        #[cfg(feature = "parallel")]
        pub(crate) fn run(&self) -> &Run<T, I> {
            &self.run
        }

        /// The CSR5 copy, for [`SpmvChoice::Csr5`].
        pub fn csr5(&self) -> Option<&Csr5Owned<T, I>> {
            match &self.run {
                Run::Csr(_) => None,
                Run::Csr5(c) => Some(c),
            }
        }
    }

    impl<T: Scalar, I: Index> SpMv<T> for SpmvPlan<'_, T, I> {
        /// Runs on the plan's [`Isa`] ([`SpmvPlan::isa`]), not [`Isa::detect`].
        fn spmv(&self, alpha: T, x: &[T], beta: T, y: &mut [T]) -> Result<(), DimError> {
            self.spmv_isa(self.isa, alpha, x, beta, y)
        }

        /// Runs the plan's choice on `isa` (a CSR5 copy laid out for another width runs
        /// correctly, on that width's portable tile loop if the lane counts differ).
        fn spmv_isa(&self, isa: Isa, alpha: T, x: &[T], beta: T, y: &mut [T]) -> Result<(), DimError> {
            match &self.run {
                Run::Csr(m) => spmv_csr(&self.a, *m, isa, alpha, x, beta, y),
                Run::Csr5(c) => c.view().spmv_isa(isa, alpha, x, beta, y),
            }
        }
    }
}
