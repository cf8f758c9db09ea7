//! Error values. No allocation: every field is a number or a `&'static str`, so errors work
//! in `no_std` firmware and still say exactly where the input was wrong.

use core::fmt;

use crate::Isa;

/// Why a format view could not be built, or a conversion could not run.
///
/// Fields locate the fault: the row, the position in the offending array, and what was
/// expected against what was found. `Display` reads as one plain sentence.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum FormatError {
    /// An array has the wrong length.
    Length {
        /// Name of the array (`"row_ptr"`, `"col_idx"`, ...).
        array: &'static str,
        /// The length the other arguments call for.
        expected: usize,
        /// The length given.
        got: usize,
    },
    /// A caller-provided output buffer is too short.
    BufferTooSmall {
        /// Name of the buffer.
        array: &'static str,
        /// The length needed.
        needed: usize,
        /// The length given.
        got: usize,
    },
    /// A dimension, a count or an offset does not fit the index type (or `usize`), or a
    /// size computed from them overflows.
    TooLarge {
        /// What overflowed (`"nrows"`, `"nnz"`, `"nrows * width"`, ...).
        what: &'static str,
        /// Its value, saturated at `usize::MAX`.
        value: usize,
        /// The largest value allowed.
        max: usize,
    },
    /// A pointer array (`row_ptr`, `slice_ptr`, `jd_ptr`) does not start at zero.
    PtrStart {
        /// Name of the array.
        array: &'static str,
        /// Its first entry.
        got: usize,
    },
    /// A pointer array decreases between `position` and `position + 1`.
    PtrDecreasing {
        /// Name of the array.
        array: &'static str,
        /// The position of the entry that is larger than its successor.
        position: usize,
    },
    /// A pointer array does not end at the number of stored entries.
    PtrEnd {
        /// Name of the array.
        array: &'static str,
        /// The number of stored entries.
        expected: usize,
        /// Its last entry.
        got: usize,
    },
    /// A column index is not below `ncols`.
    ColumnOutOfBounds {
        /// The row of the entry (the slot's row for ELL-like formats).
        row: usize,
        /// The entry's position in `col_idx`.
        position: usize,
        /// The column index found.
        col: usize,
        /// The number of columns.
        ncols: usize,
    },
    /// A row index is not below `nrows`.
    RowOutOfBounds {
        /// The entry's position in `row_idx` (or `perm`).
        position: usize,
        /// The row index found.
        row: usize,
        /// The number of rows.
        nrows: usize,
    },
    /// An index of a signed type (`i32`, `i64`) is negative. Checked with the other
    /// bounds, so it costs the valid arrays nothing.
    NegativeIndex {
        /// Name of the array (`"row_ptr"`, `"col_idx"`, `"row_idx"`, `"perm"`, ...).
        array: &'static str,
        /// The position in that array.
        position: usize,
        /// The value found.
        value: i64,
    },
    /// A padding slot (column index `I::MAX`, see [`crate::formats::pad`]) is followed by a real
    /// entry in the same row, or holds a non-zero value.
    Padding {
        /// The row of the slot.
        row: usize,
        /// The slot's position in `col_idx`.
        position: usize,
    },
    /// A SELL slice stores a number of slots that is not a multiple of its height, so
    /// it has no whole width.
    SliceLength {
        /// The slice.
        slice: usize,
        /// The number of slots it stores (`slice_ptr[slice + 1] - slice_ptr[slice]`).
        len: usize,
        /// Its height (rows in the slice).
        height: usize,
    },
    /// A row permutation lists a row twice (so it misses another).
    NotAPermutation {
        /// The position of the second occurrence.
        position: usize,
        /// The repeated row.
        row: usize,
    },
    /// Rows are not ordered as the format requires (JDS: by non-increasing length).
    RowOrder {
        /// The position (in storage order) of the first row out of order.
        position: usize,
    },
    /// DIA offsets are not strictly increasing, or one lies outside `-(nrows-1)..=ncols-1`.
    DiagonalOffset {
        /// The position in `offsets`.
        position: usize,
        /// The offset found.
        offset: isize,
    },
    /// A JDS jagged diagonal is longer than the one before it (or, for the first, than
    /// `nrows`): diagonal `d` must cover a prefix of the storage positions that the
    /// previous diagonal covers, or some stored row would have a hole.
    JaggedDiagonal {
        /// The diagonal.
        diagonal: usize,
        /// Its length (`jd_ptr[diagonal + 1] - jd_ptr[diagonal]`).
        len: usize,
        /// The largest length allowed: the previous diagonal's, or `nrows` for the first.
        max: usize,
    },
    /// A matrix entry lies on a diagonal that the given DIA offsets do not include.
    DiagonalNotStored {
        /// The entry's row.
        row: usize,
        /// The entry's position in `col_idx`.
        position: usize,
        /// Its diagonal, `col - row`.
        offset: isize,
    },
    /// A parameter (slice height, ELL width, ...) is out of its allowed range.
    Parameter {
        /// Name of the parameter.
        name: &'static str,
        /// Its value.
        value: usize,
    },
    /// A CSR5 auxiliary array (`tile_ptr`, `tile_desc`, `empty_offset_ptr`,
    /// `empty_offset`) differs from what converting its `row_ptr` produces.
    Csr5Mismatch {
        /// Name of the array.
        array: &'static str,
        /// The first position that differs.
        position: usize,
    },
    /// The operation needs rows sorted by column, and this row is not.
    UnsortedRow {
        /// The row.
        row: usize,
        /// The position in `col_idx` of the first entry smaller than its predecessor.
        position: usize,
    },
    /// An index appears twice where indices must be strictly increasing (a sparse
    /// vector, see `level1::SpVec`, which is row 0 of a one-row matrix here).
    DuplicateEntry {
        /// The row of the entry (0 for a sparse vector).
        row: usize,
        /// The position of the second occurrence.
        position: usize,
        /// The repeated column index.
        col: usize,
    },
}

impl fmt::Display for FormatError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            FormatError::Length { array, expected, got } => {
                write!(f, "`{array}` has length {got} but {expected} was expected.")
            }
            FormatError::BufferTooSmall { array, needed, got } => {
                write!(f, "output buffer `{array}` has length {got} but needs {needed}.")
            }
            FormatError::TooLarge { what, value, max } => {
                write!(f, "{what} = {value} exceeds the largest allowed value {max}.")
            }
            FormatError::PtrStart { array, got } => {
                write!(f, "`{array}` starts at {got} instead of 0.")
            }
            FormatError::PtrDecreasing { array, position } => {
                write!(f, "`{array}` decreases from position {position} to position {}.", position + 1)
            }
            FormatError::PtrEnd { array, expected, got } => {
                write!(f, "`{array}` ends at {got} but {expected} entries are stored.")
            }
            FormatError::ColumnOutOfBounds { row, position, col, ncols } => write!(
                f,
                "column index {col} at position {position} (row {row}) is not below ncols = {ncols}."
            ),
            FormatError::RowOutOfBounds { position, row, nrows } => {
                write!(f, "row index {row} at position {position} is not below nrows = {nrows}.")
            }
            FormatError::NegativeIndex { array, position, value } => {
                write!(f, "`{array}` holds the negative index {value} at position {position}.")
            }
            FormatError::Padding { row, position } => write!(
                f,
                "padding slot at position {position} (row {row}) is followed by an entry or holds a non-zero value."
            ),
            FormatError::SliceLength { slice, len, height } => {
                write!(f, "slice {slice} stores {len} slots, which is not a multiple of its height {height}.")
            }
            FormatError::NotAPermutation { position, row } => {
                write!(f, "row {row} appears a second time in the permutation, at position {position}.")
            }
            FormatError::RowOrder { position } => {
                write!(f, "the row at storage position {position} is longer than the one before it.")
            }
            FormatError::Csr5Mismatch { array, position } => {
                write!(
                    f,
                    "`{array}` at position {position} is not what the CSR5 conversion of `row_ptr` gives."
                )
            }
            FormatError::DiagonalOffset { position, offset } => write!(
                f,
                "diagonal offset {offset} at position {position} is out of range or not above the previous one."
            ),
            FormatError::JaggedDiagonal { diagonal, len, max } => write!(
                f,
                "jagged diagonal {diagonal} holds {len} entries, more than the {max} allowed (the previous diagonal's length, or nrows)."
            ),
            FormatError::DiagonalNotStored { row, position, offset } => write!(
                f,
                "the entry at position {position} (row {row}) lies on diagonal {offset}, which is not among the given offsets."
            ),
            FormatError::Parameter { name, value } => {
                write!(f, "parameter `{name}` = {value} is out of range.")
            }
            FormatError::UnsortedRow { row, position } => write!(
                f,
                "row {row} is not sorted by column: position {position} is smaller than its predecessor."
            ),
            FormatError::DuplicateEntry { row, position, col } => {
                write!(f, "column index {col} appears twice in row {row}, again at position {position}.")
            }
        }
    }
}

impl core::error::Error for FormatError {}

/// Why a kernel refused its operands: wrong lengths, mismatched shapes or an `Isa` this
/// machine cannot run. Nothing is written to the output when a kernel returns this.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum DimError {
    /// An operand has the wrong length.
    Length {
        /// Name of the operand (`"x"`, `"y"`, ...).
        operand: &'static str,
        /// The length the matrix calls for.
        expected: usize,
        /// The length given.
        got: usize,
    },
    /// Inner dimensions of a product do not agree (`A.ncols != B.nrows`).
    Inner {
        /// Columns of the left operand.
        left_ncols: usize,
        /// Rows of the right operand.
        right_nrows: usize,
    },
    /// The operands of a sum (`A + B`) differ in shape.
    Shape {
        /// Rows and columns of the left operand.
        left: (usize, usize),
        /// Rows and columns of the right operand.
        right: (usize, usize),
    },
    /// A caller-provided buffer is too short.
    BufferTooSmall {
        /// Name of the buffer.
        buffer: &'static str,
        /// The length needed.
        needed: usize,
        /// The length given.
        got: usize,
    },
    /// The requested `Isa` cannot run on this machine.
    IsaUnavailable {
        /// The `Isa` asked for.
        isa: Isa,
    },
    /// An input that must be sorted is not.
    Unsorted {
        /// Name of the operand (`"a"`, `"b"`, ...).
        operand: &'static str,
        /// The first position whose key is smaller than its predecessor's.
        position: usize,
    },
    /// A parameter (a piece count, a split point, a heap index, `k`) is out of range.
    Parameter {
        /// Name of the parameter.
        name: &'static str,
        /// Its value.
        value: usize,
    },
    /// A count computed from the operands (SpGEMM's `nnz(C)`, ...) does not fit the index
    /// type of the output.
    Overflow {
        /// What overflowed (`"nnz(C)"`, ...).
        what: &'static str,
        /// Its value, saturated at `usize::MAX`.
        value: usize,
        /// The largest value the index type holds.
        max: usize,
    },
    /// The chosen method needs an operand whose rows are sorted without duplicates
    /// ([`crate::RowOrder::Canonical`]), and this one's are not.
    NotCanonical {
        /// Name of the operand (`"b"`, ...).
        operand: &'static str,
    },
    /// A computed row disagrees with the row pointers given for the output (they were not
    /// made by the matching symbolic phase).
    RowLength {
        /// Name of the pointer operand (`"c_row_ptr"`, ...).
        operand: &'static str,
        /// The row.
        row: usize,
        /// The row's length by the pointers.
        expected: usize,
        /// The row's length as computed (a lower bound if larger than `expected`).
        got: usize,
    },
    /// A triangular solve or a symmetric view ([`Symmetric`](crate::Symmetric)) was given a
    /// matrix that is not square.
    NotSquare {
        /// Rows of the matrix.
        nrows: usize,
        /// Columns of the matrix.
        ncols: usize,
    },
    /// A triangular solve or a symmetric view found a stored entry on the other side of
    /// the diagonal from the declared triangle (above it for a lower triangle, below it
    /// for an upper one).
    NotTriangular {
        /// The entry's row.
        row: usize,
        /// The entry's column.
        col: usize,
    },
    /// A triangular solve with a non-unit diagonal found no stored diagonal entry in a row.
    MissingDiagonal {
        /// The row.
        row: usize,
    },
    /// A triangular solve with a non-unit diagonal found a row whose diagonal entries add
    /// up to zero: the matrix is singular.
    ZeroDiagonal {
        /// The row.
        row: usize,
    },
    /// An entry of an offset operand points past the data it indexes (e.g.
    /// `i + seg_offset[i] >= n`).
    OutOfRange {
        /// Name of the operand (`"seg_offset"`, ...).
        operand: &'static str,
        /// The position of the offending entry.
        position: usize,
        /// Its value.
        value: usize,
        /// The largest value allowed at that position.
        max: usize,
    },
}

impl fmt::Display for DimError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            DimError::Length { operand, expected, got } => {
                write!(f, "`{operand}` has length {got} but {expected} was expected.")
            }
            DimError::Inner { left_ncols, right_nrows } => write!(
                f,
                "inner dimensions differ: the left operand has {left_ncols} columns, the right one {right_nrows} rows."
            ),
            DimError::Shape { left, right } => write!(
                f,
                "the operands differ in shape: the left one is {} x {}, the right one {} x {}.",
                left.0, left.1, right.0, right.1
            ),
            DimError::BufferTooSmall { buffer, needed, got } => {
                write!(f, "buffer `{buffer}` has length {got} but needs {needed}.")
            }
            DimError::IsaUnavailable { isa } => {
                write!(f, "instruction set {isa} is not available on this machine.")
            }
            DimError::Unsorted { operand, position } => {
                write!(f, "`{operand}` is not sorted: position {position} is smaller than its predecessor.")
            }
            DimError::Parameter { name, value } => {
                write!(f, "parameter `{name}` = {value} is out of range.")
            }
            DimError::Overflow { what, value, max } => {
                write!(f, "{what} = {value} does not fit the index type (largest value {max}).")
            }
            DimError::NotCanonical { operand } => write!(
                f,
                "the rows of `{operand}` must be sorted without duplicates for this method, and they are not."
            ),
            DimError::RowLength { operand, row, expected, got } => write!(
                f,
                "row {row} has {got} entries but `{operand}` leaves room for {expected}; it was not made by the symbolic phase."
            ),
            DimError::NotSquare { nrows, ncols } => {
                write!(
                    f,
                    "the matrix is {nrows} x {ncols}, but a triangular solve or a symmetric view needs a square one."
                )
            }
            DimError::NotTriangular { row, col } => {
                write!(f, "the entry at row {row}, column {col} lies outside the declared triangle.")
            }
            DimError::MissingDiagonal { row } => {
                write!(f, "row {row} stores no diagonal entry, and the diagonal is not declared unit.")
            }
            DimError::ZeroDiagonal { row } => {
                write!(f, "the diagonal entry of row {row} is zero: the triangular matrix is singular.")
            }
            DimError::OutOfRange { operand, position, value, max } => {
                write!(f, "`{operand}[{position}]` = {value} exceeds the largest value allowed there, {max}.")
            }
        }
    }
}

impl core::error::Error for DimError {}
