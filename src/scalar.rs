//! The value and index types the kernels are generic over.
//!
//! Both traits are sealed: the kernels' SIMD paths exist for exactly these types, and the
//! validation code relies on the exact integer ranges below.

use core::fmt::{Debug, Display};
use core::iter::Sum;
use core::ops::{Add, AddAssign, Div, Mul, MulAssign, Neg, Sub, SubAssign};

mod sealed {
    pub trait Sealed {}
    impl Sealed for f32 {}
    impl Sealed for f64 {}
    impl Sealed for u16 {}
    impl Sealed for u32 {}
    impl Sealed for u64 {}
    impl Sealed for usize {}
    impl Sealed for i32 {}
    impl Sealed for i64 {}
}

/// A matrix value type: `f32` or `f64`.
///
/// `Pod` lets callers view value buffers as bytes (I/O, GPU uploads) with `bytemuck`.
pub trait Scalar:
    sealed::Sealed
    + Copy
    + Default
    + Debug
    + Display
    + PartialEq
    + PartialOrd
    + Send
    + Sync
    + 'static
    + bytemuck::Pod
    + Add<Output = Self>
    + Sub<Output = Self>
    + Mul<Output = Self>
    + Div<Output = Self>
    + Neg<Output = Self>
    + AddAssign
    + SubAssign
    + MulAssign
    + Sum
{
    /// Additive identity.
    const ZERO: Self;
    /// Multiplicative identity.
    const ONE: Self;
    /// Machine epsilon of the type.
    const EPSILON: Self;
    /// Type name (`"f32"`/`"f64"`), for tables and benchmark ids.
    const NAME: &'static str;

    /// Absolute value.
    fn abs(self) -> Self;
    /// Square root (through `libm`, so it works without `std`).
    fn sqrt(self) -> Self;
    /// Whether the value is neither infinite nor NaN.
    fn is_finite(self) -> bool;
    /// Conversion from `f64`, rounding to nearest.
    fn from_f64(v: f64) -> Self;
    /// Conversion to `f64` (exact for both types).
    fn to_f64(self) -> f64;
}

macro_rules! impl_scalar {
    ($t:ty, $sqrt:path) => {
        impl Scalar for $t {
            const ZERO: Self = 0.0;
            const ONE: Self = 1.0;
            const EPSILON: Self = <$t>::EPSILON;
            const NAME: &'static str = stringify!($t);
            #[inline(always)]
            fn abs(self) -> Self {
                <$t>::abs(self)
            }
            #[inline(always)]
            fn sqrt(self) -> Self {
                $sqrt(self)
            }
            #[inline(always)]
            fn is_finite(self) -> bool {
                <$t>::is_finite(self)
            }
            #[inline(always)]
            fn from_f64(v: f64) -> Self {
                v as $t
            }
            #[inline(always)]
            fn to_f64(self) -> f64 {
                self as f64
            }
        }
    };
}
impl_scalar!(f32, libm::sqrtf);
impl_scalar!(f64, libm::sqrt);

/// An index type for `row_ptr`, `col_idx` and friends: `u16`, `u32`, `u64`, `usize`,
/// `i32` or `i64`.
///
/// `u16` halves the index memory of the matrices below 65 536 rows, columns and entries
/// that firmware holds; its kernels are the portable ones (no width has a 16-bit gather),
/// and every constructor and product reports the sizes that do not fit as errors.
///
/// `i32` and `i64` are the index types of C, MKL (`MKL_INT`) and SciPy (`int32` /
/// `int64` `indptr` and `indices`), so their arrays are borrowed without a copy. Their
/// contract: a validated view holds only values in `0..=Self::MAX` (every constructor
/// rejects a negative one, [`crate::FormatError::NegativeIndex`]), which have the bits of
/// the unsigned type of the same width, so the kernels run the `u32` / `u64` paths on
/// them. The largest value is `Self::MAX` (`i32::MAX`, not `u32::MAX`): dimensions and
/// counts are bounded by it, and the CSR5 empty-row flag is the sign bit, the thesis's
/// negative tile pointer (6.3.3), with the bits of the unsigned flag.
///
/// A format constructor checks that every dimension and offset fits both `Self` and
/// `usize`, so kernels may convert validated indices with [`Index::to_usize`] freely.
pub trait Index:
    sealed::Sealed
    + Copy
    + Default
    + Debug
    + Display
    + Eq
    + Ord
    + core::hash::Hash
    + Send
    + Sync
    + 'static
    + bytemuck::Pod
{
    /// Zero.
    const ZERO: Self;
    /// The largest value of the type.
    const MAX: Self;
    /// Size of one index in bytes (for the thesis's bandwidth formula).
    const BYTES: usize;
    /// Type name (`"u16"`, `"u32"`, `"u64"`, `"usize"`, `"i32"`, `"i64"`), for tables and
    /// benchmark ids.
    const NAME: &'static str;
    /// The largest `usize` that this type can hold (`min(Self::MAX, usize::MAX)`).
    const MAX_USIZE: usize;

    /// Conversion to `usize`. Exact for every value in `0..=`[`Index::MAX_USIZE`]; a
    /// validated view only holds such values. Larger values wrap (on 32-bit targets);
    /// negative ones become values above `MAX_USIZE` on 64-bit targets (sign extension),
    /// and wrap to any value for `i64` on 32-bit ones, so validation never converts an
    /// unchecked index with it: it uses [`Index::try_to_usize`] or [`Index::exceeds`].
    fn to_usize(self) -> usize;
    /// Conversion to `usize`, `None` when the value does not fit (negative values
    /// included).
    fn try_to_usize(self) -> Option<usize>;
    /// Whether `self > max` for a `max` in `0..=Self::MAX`, counting every negative value
    /// as above it: one unsigned comparison of the bits, which the validation passes
    /// vectorise.
    fn exceeds(self, max: Self) -> bool;
    /// The value, when it is negative (only `i32` and `i64` have such values): what
    /// [`crate::FormatError::NegativeIndex`] reports.
    fn negative(self) -> Option<i64>;
    /// Conversion from `usize`, `None` when the value does not fit.
    fn from_usize(v: usize) -> Option<Self>;
    /// Conversion from `usize`, wrapping; for values already known to fit.
    fn from_usize_unchecked(v: usize) -> Self;
    /// The largest `usize` that fits in the bits below the top bit (`Self::MAX >> 1` for
    /// the unsigned types, `Self::MAX` for the signed ones, whose top bit is the sign; at
    /// most `usize::MAX`): the range of a CSR5 `tile_ptr` entry, whose top bit is the
    /// empty-row flag (thesis 6.3.3).
    const MAX_UNFLAGGED: usize;
    /// `self` with its top bit set (the thesis's "negative" tile pointer; for `i32` and
    /// `i64` a negative value indeed, with the bits of the unsigned type's flag).
    fn flagged(self) -> Self;
    /// Whether the top bit is set (for the signed types: whether `self < 0`).
    fn is_flagged(self) -> bool;
    /// `self` with its top bit cleared.
    fn unflagged(self) -> Self;
}

macro_rules! impl_index {
    ($t:ty) => {
        impl Index for $t {
            const ZERO: Self = 0;
            const MAX: Self = <$t>::MAX;
            const BYTES: usize = core::mem::size_of::<$t>();
            const NAME: &'static str = stringify!($t);
            const MAX_USIZE: usize =
                if (<$t>::MAX as u128) < (usize::MAX as u128) { <$t>::MAX as usize } else { usize::MAX };
            #[inline(always)]
            fn to_usize(self) -> usize {
                self as usize
            }
            #[inline(always)]
            fn try_to_usize(self) -> Option<usize> {
                usize::try_from(self).ok()
            }
            #[inline(always)]
            fn exceeds(self, max: Self) -> bool {
                self > max
            }
            #[inline(always)]
            fn negative(self) -> Option<i64> {
                None
            }
            #[inline(always)]
            fn from_usize(v: usize) -> Option<Self> {
                <$t>::try_from(v).ok()
            }
            #[inline(always)]
            fn from_usize_unchecked(v: usize) -> Self {
                v as $t
            }
            const MAX_UNFLAGGED: usize = if ((<$t>::MAX >> 1) as u128) < (usize::MAX as u128) {
                (<$t>::MAX >> 1) as usize
            } else {
                usize::MAX
            };
            #[inline(always)]
            fn flagged(self) -> Self {
                self | !(<$t>::MAX >> 1)
            }
            #[inline(always)]
            fn is_flagged(self) -> bool {
                self > (<$t>::MAX >> 1)
            }
            #[inline(always)]
            fn unflagged(self) -> Self {
                self & (<$t>::MAX >> 1)
            }
        }
    };
}
impl_index!(u16);
impl_index!(u32);
impl_index!(u64);
impl_index!(usize);

/// The signed index types, `$u` the unsigned type of their width. Valid values are
/// `0..=MAX`: the bits of `$u` below its top bit, so the flag is the sign bit (the thesis
/// marks a tile with empty rows by a negative `tile_ptr`) and a flagged or negative value
/// is one with the top bit set, as in `$u`.
macro_rules! impl_signed_index {
    ($t:ty, $u:ty) => {
        impl Index for $t {
            const ZERO: Self = 0;
            const MAX: Self = <$t>::MAX;
            const BYTES: usize = core::mem::size_of::<$t>();
            const NAME: &'static str = stringify!($t);
            const MAX_USIZE: usize =
                if (<$t>::MAX as u128) < (usize::MAX as u128) { <$t>::MAX as usize } else { usize::MAX };
            #[inline(always)]
            fn to_usize(self) -> usize {
                self as usize
            }
            #[inline(always)]
            fn try_to_usize(self) -> Option<usize> {
                usize::try_from(self).ok()
            }
            #[inline(always)]
            fn exceeds(self, max: Self) -> bool {
                (self as $u) > (max as $u)
            }
            #[inline(always)]
            fn negative(self) -> Option<i64> {
                (self < 0).then_some(self as i64)
            }
            #[inline(always)]
            fn from_usize(v: usize) -> Option<Self> {
                <$t>::try_from(v).ok()
            }
            #[inline(always)]
            fn from_usize_unchecked(v: usize) -> Self {
                v as $t
            }
            const MAX_UNFLAGGED: usize = Self::MAX_USIZE;
            #[inline(always)]
            fn flagged(self) -> Self {
                self | <$t>::MIN
            }
            #[inline(always)]
            fn is_flagged(self) -> bool {
                self < 0
            }
            #[inline(always)]
            fn unflagged(self) -> Self {
                self & <$t>::MAX
            }
        }
    };
}
impl_signed_index!(i32, u32);
impl_signed_index!(i64, u64);

/// `if c { a } else { b }` on the bits, without a branch: LLVM turns a float select on
/// unpredictable data into a jump, which mispredicts half the time. Used by `level1`'s
/// merge and SPA. (SpGEMM's row SPA keeps its branch: its rows see mostly fresh
/// columns, so it predicts well.) Measurements: `benches/records/kernel-notes-2026-11.md`,
/// "Branch-free selects in level 1".
#[inline(always)]
pub(crate) fn pick<T: Scalar>(c: bool, a: T, b: T) -> T {
    // `black_box` hides that the mask comes from a comparison, or LLVM rebuilds the
    // select (and its jump). It costs a store and a load, off the merge's critical path
    // (the cursors depend on the indices only).
    let mask = core::hint::black_box(0u64.wrapping_sub(u64::from(c)));
    if let (Ok(x), Ok(y)) = (bytemuck::try_cast::<T, u64>(a), bytemuck::try_cast::<T, u64>(b)) {
        return bytemuck::try_cast((x & mask) | (y & !mask)).unwrap_or(b);
    }
    if let (Ok(x), Ok(y)) = (bytemuck::try_cast::<T, u32>(a), bytemuck::try_cast::<T, u32>(b)) {
        let mask = mask as u32;
        return bytemuck::try_cast((x & mask) | (y & !mask)).unwrap_or(b);
    }
    if c { a } else { b }
}
