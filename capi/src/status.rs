//! The status every function returns, and how spblas's errors map onto it.

use spblas_core::{DimError, FormatError};

/// The result of every function: `SPBLAS_OK` (0) or one of the `SPBLAS_ERR_*` codes.
pub type Status = i32;

/// Success.
pub const SPBLAS_OK: Status = 0;
/// A pointer that must not be NULL is NULL (an array of length 0 may be NULL).
pub const SPBLAS_ERR_NULL_POINTER: Status = 1;
/// A pointer is not aligned to its element type.
pub const SPBLAS_ERR_MISALIGNED: Status = 2;
/// A length or count does not fit: its bytes overflow the address space, it exceeds the
/// index type (`UINT32_MAX` for `_u32`), or an array of that size cannot be made.
pub const SPBLAS_ERR_TOO_LARGE: Status = 3;
/// The arrays do not form a valid matrix: `row_ptr` not starting at 0, decreasing, or not
/// ending at the entry count; a column index out of bounds; CSR5 arrays that do not
/// match the CSR they claim to come from.
pub const SPBLAS_ERR_INVALID_MATRIX: Status = 4;
/// The operands' dimensions disagree (`A.ncols != B.nrows`, a vector of the wrong length).
pub const SPBLAS_ERR_DIMENSION: Status = 5;
/// A caller buffer is shorter than the matching query said it must be.
pub const SPBLAS_ERR_BUFFER_TOO_SMALL: Status = 6;
/// A parameter is out of range: a CSR5 layout not made for this matrix, SpGEMM row
/// pointers not made by the symbolic phase, a B whose rows must be sorted.
pub const SPBLAS_ERR_INVALID_ARGUMENT: Status = 7;
/// This machine cannot run the instruction set asked for.
pub const SPBLAS_ERR_ISA_UNAVAILABLE: Status = 8;
/// The allocator refused memory (the plan functions).
pub const SPBLAS_ERR_OUT_OF_MEMORY: Status = 9;

pub(crate) use self::{
    SPBLAS_ERR_INVALID_ARGUMENT as ERR_INVALID_ARGUMENT, SPBLAS_ERR_MISALIGNED as ERR_MISALIGNED,
    SPBLAS_ERR_NULL_POINTER as ERR_NULL_POINTER, SPBLAS_ERR_TOO_LARGE as ERR_TOO_LARGE,
};
#[cfg(feature = "std")]
pub(crate) use SPBLAS_ERR_OUT_OF_MEMORY as ERR_OUT_OF_MEMORY;

/// The status of a refused matrix.
pub(crate) fn of_format(e: FormatError) -> Status {
    match e {
        FormatError::TooLarge { .. } => SPBLAS_ERR_TOO_LARGE,
        FormatError::BufferTooSmall { .. } => SPBLAS_ERR_BUFFER_TOO_SMALL,
        FormatError::Parameter { .. } => SPBLAS_ERR_INVALID_ARGUMENT,
        _ => SPBLAS_ERR_INVALID_MATRIX,
    }
}

/// The status of refused operands.
pub(crate) fn of_dim(e: DimError) -> Status {
    match e {
        DimError::Length { .. } | DimError::Inner { .. } | DimError::Shape { .. } => SPBLAS_ERR_DIMENSION,
        DimError::BufferTooSmall { .. } => SPBLAS_ERR_BUFFER_TOO_SMALL,
        DimError::IsaUnavailable { .. } => SPBLAS_ERR_ISA_UNAVAILABLE,
        DimError::Overflow { .. } => SPBLAS_ERR_TOO_LARGE,
        _ => SPBLAS_ERR_INVALID_ARGUMENT,
    }
}

/// The sentence naming `status` (a static string; never NULL).
pub(crate) fn message(status: Status) -> &'static core::ffi::CStr {
    match status {
        SPBLAS_OK => c"success",
        SPBLAS_ERR_NULL_POINTER => c"a pointer that must not be NULL is NULL",
        SPBLAS_ERR_MISALIGNED => c"a pointer is not aligned to its element type",
        SPBLAS_ERR_TOO_LARGE => c"a length or count is too large (address space, index type or memory)",
        SPBLAS_ERR_INVALID_MATRIX => c"the arrays do not form a valid matrix",
        SPBLAS_ERR_DIMENSION => c"the operands' dimensions disagree",
        SPBLAS_ERR_BUFFER_TOO_SMALL => c"a buffer is shorter than its query said",
        SPBLAS_ERR_INVALID_ARGUMENT => c"a parameter is out of range or was not made for this matrix",
        SPBLAS_ERR_ISA_UNAVAILABLE => c"this machine cannot run the instruction set asked for",
        SPBLAS_ERR_OUT_OF_MEMORY => c"the allocator refused memory",
        _ => c"unknown status",
    }
}
