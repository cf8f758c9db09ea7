//! Matrix Market read/write (feature `mtx`).
//!
//! The Matrix Market exchange format is NIST's plain-text format for sparse and dense
//! matrices (R. F. Boisvert, R. Pozo, K. Remington, *The Matrix Market Exchange Formats:
//! Initial Design*, NISTIR 5935, 1996; <https://math.nist.gov/MatrixMarket/formats.html>).
//! It is the form in which the SuiteSparse Matrix Collection, and with it the thesis's
//! benchmark matrices, are distributed. A file reads:
//!
//! ```text
//! %%MatrixMarket matrix coordinate real symmetric
//! % any number of comment lines
//! 3 3 4
//! 1 1 2.5
//! 2 1 -1
//! 3 2 4e-3
//! 3 3 1
//! ```
//!
//! The banner names the object (`matrix`), the format (`coordinate` or `array`), the field
//! (`real`, `integer`, `pattern` or `complex`) and the symmetry (`general`, `symmetric`,
//! `skew-symmetric` or `hermitian`); keywords are case-insensitive. The size line gives
//! rows, columns and, for `coordinate`, the number of entry lines that follow. Entries
//! are 1-based `row col [value]`.
//!
//! This module reads `coordinate` files of fields `real`, `integer` and `pattern` with any
//! of the symmetries `general`, `symmetric` and `skew-symmetric`; the other kinds (`array`,
//! `complex`, `hermitian`) are recognised by [`read_mtx_header`] but [`read_mtx`] refuses
//! them with [`MtxError::Unsupported`]. It writes `coordinate real` files.
//!
//! Reading never panics, whatever the bytes: every fault is an [`MtxError`] naming the
//! 1-based line, a failing stream's (corrupt gzip, say) included. Memory grows with the
//! entries actually read (a declared count is never trusted for allocation); only the
//! row count, which the CSR row pointer needs, is allocated up front, and [`MtxLimits`]
//! bounds it, as it bounds the bytes of a line held. Every allocation is fallible: an
//! exhausted allocator is [`MtxError::Alloc`], not an abort. Use tight limits for
//! untrusted input.
//!
//! ```
//! use spblas::io::{MtxSymmetry, read_mtx, write_mtx};
//! use spblas::CsrOwned;
//!
//! let text = "%%MatrixMarket matrix coordinate real symmetric\n2 2 2\n1 1 4\n2 1 -1\n";
//! let a: CsrOwned<f64, u32> = read_mtx(text.as_bytes())?;
//! let mut dense = [0.0; 4];
//! a.view().to_dense(&mut dense)?;
//! assert_eq!(dense, [4.0, -1.0, -1.0, 0.0]);
//!
//! let mut out = Vec::new();
//! write_mtx(&mut out, &a.view(), MtxSymmetry::Symmetric)?;
//! let b: CsrOwned<f64, u32> = read_mtx(&out[..])?;
//! assert_eq!(a, b);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use core::fmt;
use std::borrow::ToOwned;
use std::fs::File;
use std::io::{self, BufRead, BufReader, BufWriter, Read, Write};
use std::path::Path;
use std::string::{String, ToString};
use std::vec::Vec;

use flate2::Compression;
use flate2::read::MultiGzDecoder;
use flate2::write::GzEncoder;

use crate::{Csr, CsrOwned, FormatError, Index, RowOrder, Scalar};

/// The object keyword of a Matrix Market banner. Only `matrix` is defined by the format.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum MtxObject {
    /// `matrix`.
    Matrix,
}

/// The format keyword of a Matrix Market banner.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum MtxFormat {
    /// `coordinate`: sparse, one `row col [value]` line per entry.
    Coordinate,
    /// `array`: dense, column-major, one value per line (not read by [`read_mtx`]).
    Array,
}

/// The field keyword of a Matrix Market banner: the type of the values.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum MtxField {
    /// `real`: floating-point values.
    Real,
    /// `integer`: integer values (read as `i64`, then converted to the scalar type).
    Integer,
    /// `pattern`: no values; every entry reads as one.
    Pattern,
    /// `complex`: pairs of reals (not read by [`read_mtx`]).
    Complex,
}

/// The symmetry keyword of a Matrix Market banner.
///
/// For the three symmetric kinds a file stores only the entries on and below the
/// diagonal (strictly below for `skew-symmetric`); the reader mirrors them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum MtxSymmetry {
    /// `general`: every entry is stored.
    General,
    /// `symmetric`: `a_ji = a_ij`.
    Symmetric,
    /// `skew-symmetric`: `a_ji = -a_ij`, and the diagonal is zero.
    SkewSymmetric,
    /// `hermitian`: `a_ji = conj(a_ij)`; only meaningful for `complex` (not read or
    /// written here).
    Hermitian,
}

impl MtxFormat {
    /// The banner keyword, in lower case.
    pub fn keyword(self) -> &'static str {
        match self {
            MtxFormat::Coordinate => "coordinate",
            MtxFormat::Array => "array",
        }
    }
}

impl MtxField {
    /// The banner keyword, in lower case.
    pub fn keyword(self) -> &'static str {
        match self {
            MtxField::Real => "real",
            MtxField::Integer => "integer",
            MtxField::Pattern => "pattern",
            MtxField::Complex => "complex",
        }
    }
}

impl MtxSymmetry {
    /// The banner keyword, in lower case.
    pub fn keyword(self) -> &'static str {
        match self {
            MtxSymmetry::General => "general",
            MtxSymmetry::Symmetric => "symmetric",
            MtxSymmetry::SkewSymmetric => "skew-symmetric",
            MtxSymmetry::Hermitian => "hermitian",
        }
    }
}

impl fmt::Display for MtxFormat {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.keyword())
    }
}

impl fmt::Display for MtxField {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.keyword())
    }
}

impl fmt::Display for MtxSymmetry {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.keyword())
    }
}

/// What the banner and size line of a Matrix Market file declare.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub struct MtxHeader {
    /// The object (always `matrix`).
    pub object: MtxObject,
    /// `coordinate` or `array`.
    pub format: MtxFormat,
    /// The type of the values.
    pub field: MtxField,
    /// Which entries are stored and how the others follow from them.
    pub symmetry: MtxSymmetry,
    /// Number of rows.
    pub nrows: usize,
    /// Number of columns.
    pub ncols: usize,
    /// For `coordinate`: the number of entry lines declared (before mirroring). For
    /// `array`, which declares no count: `nrows * ncols`, saturating at `usize::MAX`.
    pub nnz: usize,
}

/// Bounds on what a reader allocates, so that a short file declaring a huge matrix, or
/// holding one endless line, is an error rather than an out-of-memory abort.
///
/// The entries themselves are stored as they are read, so their memory grows with the
/// input; the row pointer (`nrows + 1` indices) is the one allocation a header alone can
/// make large, and a line is held whole only up to `max_line_len` bytes. The defaults
/// admit every matrix of the SuiteSparse collection.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub struct MtxLimits {
    /// The largest number of rows accepted. Default: `2^28` (268 435 456).
    pub max_nrows: usize,
    /// The largest number of stored entries accepted, counted after symmetric entries are
    /// mirrored and before duplicates are summed; also bounds the declared count.
    /// Default: `usize::MAX`.
    pub max_entries: usize,
    /// The longest line accepted, in bytes, its `\n` or `\r\n` not counted. Default:
    /// `2^20` (1 MiB). An entry line, two indices and a value, is under 100 bytes, and
    /// comments are short prose; the bound keeps a line of gigabytes (a thousandth of
    /// that as `.gz`) out of memory while the reader looks for its end.
    pub max_line_len: usize,
}

/// The default of [`MtxLimits::max_line_len`].
const MAX_LINE_LEN: usize = 1 << 20;

impl Default for MtxLimits {
    fn default() -> Self {
        MtxLimits::new(1 << 28, usize::MAX)
    }
}

impl MtxLimits {
    /// Limits with the given bounds, and the default [`MtxLimits::max_line_len`].
    pub const fn new(max_nrows: usize, max_entries: usize) -> Self {
        MtxLimits { max_nrows, max_entries, max_line_len: MAX_LINE_LEN }
    }

    /// These limits with [`MtxLimits::max_line_len`] set, usable in a `const`.
    #[must_use]
    pub const fn with_max_line_len(mut self, max_line_len: usize) -> Self {
        self.max_line_len = max_line_len;
        self
    }
}

/// Why a Matrix Market file could not be read or written.
///
/// `line` fields are 1-based line numbers in the file. `Display` reads as one plain
/// sentence.
#[derive(Debug)]
#[non_exhaustive]
pub enum MtxError {
    /// The banner or the size line is malformed.
    Header {
        /// The line.
        line: usize,
        /// What is wrong with it.
        reason: &'static str,
    },
    /// An entry line is malformed or outside the matrix.
    Entry {
        /// The line.
        line: usize,
        /// What is wrong with it.
        reason: &'static str,
    },
    /// The file holds fewer or more entry lines than its size line declares.
    Count {
        /// For too few: one past the last line (where the next entry was expected). For
        /// too many: the first extra line.
        line: usize,
        /// The count the size line declares.
        expected: usize,
        /// The count found.
        got: usize,
    },
    /// The file is a valid Matrix Market file of a kind this module does not handle
    /// (`array`, `complex`, `hermitian`, an object other than `matrix`), or a writer was
    /// asked for `hermitian`.
    Unsupported {
        /// The banner line (1), or 0 when writing.
        line: usize,
        /// What is not supported.
        what: String,
    },
    /// A size exceeds the bound set by [`MtxLimits`].
    Limit {
        /// The line that declares or adds the size.
        line: usize,
        /// What is too large (`"nrows"`, `"entries"`, `"line length"`).
        what: &'static str,
        /// Its value; for `"line length"`, the bytes of the line read when the limit was
        /// passed (the rest is left unread), so at least `max + 1`.
        value: usize,
        /// The bound.
        max: usize,
    },
    /// Memory for an array could not be allocated.
    Alloc {
        /// Which array.
        what: &'static str,
        /// The number of elements asked for.
        len: usize,
    },
    /// A symmetric or skew-symmetric file was asked for a matrix that is not square.
    NotSquare {
        /// The symmetry asked for.
        symmetry: MtxSymmetry,
        /// Rows of the matrix.
        nrows: usize,
        /// Columns of the matrix.
        ncols: usize,
    },
    /// A symmetric or skew-symmetric file was asked for a matrix that does not have that
    /// symmetry.
    NotSymmetric {
        /// The symmetry asked for.
        symmetry: MtxSymmetry,
        /// The 0-based row of the first entry whose mirror does not match.
        row: usize,
        /// Its 0-based column.
        col: usize,
    },
    /// Reading or writing the underlying stream failed (including corrupt or truncated
    /// gzip data). A failure while reading a line names that line: in `Display` and
    /// through [`MtxError::line`]; the error keeps the stream's [`io::ErrorKind`], and
    /// [`source`](std::error::Error::source) gives the stream's own error.
    Io(io::Error),
    /// The matrix does not fit the index type (a dimension or the entry count is too
    /// large for `I`).
    Format(FormatError),
}

impl fmt::Display for MtxError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            MtxError::Header { line, reason } => {
                write!(f, "Matrix Market header error on line {line}: {reason}.")
            }
            MtxError::Entry { line, reason } => {
                write!(f, "Matrix Market entry error on line {line}: {reason}.")
            }
            MtxError::Count { line, expected, got } if got < expected => write!(
                f,
                "the Matrix Market file declares {expected} entries but ends after {got}, at line {line}."
            ),
            MtxError::Count { line, expected, got } => write!(
                f,
                "the Matrix Market file declares {expected} entries but holds {got}, the first extra one on line {line}."
            ),
            MtxError::Unsupported { line: 0, what } => write!(f, "{what} is not supported."),
            MtxError::Unsupported { line, what } => {
                write!(f, "the Matrix Market file uses {what} (line {line}), which is not supported.")
            }
            MtxError::Limit { line, what: "line length", max, .. } => write!(
                f,
                "line {line} is longer than {max} bytes, the limit set by `MtxLimits` (`max_line_len`)."
            ),
            MtxError::Limit { line, what, value, max } => {
                write!(f, "line {line} asks for {what} = {value}, above the limit {max} set by `MtxLimits`.")
            }
            MtxError::Alloc { what, len } => {
                write!(f, "could not allocate {len} elements for {what}.")
            }
            MtxError::NotSquare { symmetry, nrows, ncols } => write!(
                f,
                "a {symmetry} Matrix Market file needs a square matrix, but this one is {nrows} x {ncols}."
            ),
            MtxError::NotSymmetric { symmetry, row, col } => write!(
                f,
                "the matrix is not {symmetry}: the entry at row {row}, column {col} (0-based) does not match its mirror."
            ),
            MtxError::Io(e) => match AtLine::of(e) {
                Some(at) => {
                    let e = at.error.to_string();
                    write!(f, "Matrix Market I/O failed on line {}: {}.", at.line, e.trim_end_matches('.'))
                }
                None => {
                    let e = e.to_string();
                    write!(f, "Matrix Market I/O failed: {}.", e.trim_end_matches('.'))
                }
            },
            MtxError::Format(e) => write!(f, "the matrix cannot be stored with this index type: {e}"),
        }
    }
}

impl MtxError {
    /// The 1-based line the error names: `Some` for every fault met while reading lines;
    /// `None` for writing, for a file that cannot be opened, and for [`MtxError::Alloc`]
    /// and [`MtxError::Format`], which concern the whole matrix.
    pub fn line(&self) -> Option<usize> {
        match self {
            MtxError::Header { line, .. }
            | MtxError::Entry { line, .. }
            | MtxError::Count { line, .. }
            | MtxError::Limit { line, .. } => Some(*line),
            MtxError::Unsupported { line, .. } => (*line > 0).then_some(*line),
            MtxError::Io(e) => AtLine::of(e).map(|at| at.line),
            _ => None,
        }
    }
}

/// A stream's error while reading a line, with that line: the payload of the
/// [`io::Error`] in [`MtxError::Io`], so the variant stays what it was.
#[derive(Debug)]
struct AtLine {
    line: usize,
    error: io::Error,
}

impl AtLine {
    /// `error` as the stream's failure on `line`, of the same kind.
    fn wrap(error: io::Error, line: usize) -> MtxError {
        MtxError::Io(io::Error::new(error.kind(), AtLine { line, error }))
    }

    fn of(e: &io::Error) -> Option<&AtLine> {
        e.get_ref()?.downcast_ref::<AtLine>()
    }
}

impl fmt::Display for AtLine {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "line {}: {}", self.line, self.error)
    }
}

impl std::error::Error for AtLine {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        Some(&self.error)
    }
}

impl std::error::Error for MtxError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            MtxError::Io(e) => Some(AtLine::of(e).map_or(e, |at| &at.error)),
            MtxError::Format(e) => Some(e),
            _ => None,
        }
    }
}

impl From<io::Error> for MtxError {
    fn from(e: io::Error) -> Self {
        MtxError::Io(e)
    }
}

impl From<FormatError> for MtxError {
    fn from(e: FormatError) -> Self {
        MtxError::Format(e)
    }
}

// ---------------------------------------------------------------------------------------
// Reading
// ---------------------------------------------------------------------------------------

/// Reads lines as bytes (so that invalid UTF-8 is an entry error, not an I/O error) and
/// counts them.
struct Lines<R> {
    reader: R,
    buf: Vec<u8>,
    /// 1-based number of the current line; 0 before the first.
    line: usize,
    /// The current line without its terminator is `buf[..end]`.
    end: usize,
    /// [`MtxLimits::max_line_len`].
    max_len: usize,
}

impl<R: BufRead> Lines<R> {
    fn new(reader: R, limits: &MtxLimits) -> Self {
        Lines { reader, buf: Vec::new(), line: 0, end: 0, max_len: limits.max_line_len }
    }

    /// Moves to the next line; `false` at the end of the input.
    ///
    /// Never holds more than `max_len + 2` bytes of a line (its `\r\n` included): a longer
    /// one is an error as soon as it is seen, not after it has been buffered whole.
    fn advance(&mut self) -> Result<bool, MtxError> {
        self.buf.clear();
        let line = self.line.saturating_add(1);
        // Bytes before the `\n`: the line and possibly a `\r`.
        let room = self.max_len.saturating_add(1);
        loop {
            let chunk = match self.reader.fill_buf() {
                Ok(chunk) => chunk,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(AtLine::wrap(e, line)),
            };
            if chunk.is_empty() {
                break;
            }
            let (body, take) = match chunk.iter().position(|&b| b == b'\n') {
                Some(k) => (k, k + 1),
                None => (chunk.len(), chunk.len()),
            };
            // `buf` holds no `\n` yet, and at most `room` bytes.
            if body > room - self.buf.len() {
                return Err(MtxError::Limit {
                    line,
                    what: "line length",
                    value: self.buf.len().saturating_add(body),
                    max: self.max_len,
                });
            }
            let want = self.buf.len() + take;
            if want > self.buf.capacity() {
                // Doubling, but never past the longest line allowed, and fallibly.
                let cap = self.buf.capacity().saturating_mul(2).min(room.saturating_add(1));
                let target = want.max(cap);
                self.buf
                    .try_reserve_exact(target - self.buf.len())
                    .map_err(|_| MtxError::Alloc { what: "line", len: target })?;
            }
            self.buf.extend_from_slice(&chunk[..take]);
            self.reader.consume(take);
            if take > body {
                break;
            }
        }
        if self.buf.is_empty() {
            return Ok(false);
        }
        self.line = line;
        let mut end = self.buf.len();
        while end > 0 && matches!(self.buf[end - 1], b'\n' | b'\r') {
            end -= 1;
        }
        self.end = end;
        // `room` let one byte more through, for a `\r`; without one the line is too long.
        let mut len = self.buf.len() - usize::from(self.buf.ends_with(b"\n"));
        len -= usize::from(self.buf[..len].ends_with(b"\r"));
        if len > self.max_len {
            return Err(MtxError::Limit { line, what: "line length", value: len, max: self.max_len });
        }
        Ok(true)
    }

    /// Moves to the next line that is neither blank nor a comment; `false` at the end.
    fn advance_data(&mut self) -> Result<bool, MtxError> {
        while self.advance()? {
            match self.current().iter().find(|b| !b.is_ascii_whitespace()) {
                None | Some(b'%') => {}
                Some(_) => return Ok(true),
            }
        }
        Ok(false)
    }

    fn current(&self) -> &[u8] {
        &self.buf[..self.end]
    }
}

fn tokens(line: &[u8]) -> impl Iterator<Item = &[u8]> {
    line.split(u8::is_ascii_whitespace).filter(|t| !t.is_empty())
}

fn parse_usize(tok: &[u8]) -> Option<usize> {
    core::str::from_utf8(tok).ok()?.parse().ok()
}

/// Parses a real in the precision of `T` directly: parsing an `f32` through `f64` would
/// round twice and could miss the nearest `f32`.
fn parse_real<T: Scalar>(tok: &[u8]) -> Option<T> {
    let s = core::str::from_utf8(tok).ok()?;
    if core::mem::size_of::<T>() == 4 {
        s.parse::<f32>().ok().map(|x| T::from_f64(f64::from(x)))
    } else {
        s.parse::<f64>().ok().map(T::from_f64)
    }
}

/// A short, printable rendering of a keyword for an error message.
fn show(tok: &[u8]) -> String {
    String::from_utf8_lossy(&tok[..tok.len().min(32)]).into_owned()
}

/// Parses the banner line: object, format, field and symmetry.
fn parse_banner(
    bytes: &[u8],
    line: usize,
) -> Result<(MtxObject, MtxFormat, MtxField, MtxSymmetry), MtxError> {
    let header_err = |line, reason| MtxError::Header { line, reason };
    let mut toks = tokens(bytes);
    match toks.next() {
        Some(t) if t.eq_ignore_ascii_case(b"%%MatrixMarket") => {}
        _ => return Err(header_err(line, "the first line is not a `%%MatrixMarket` banner")),
    }
    let few = "the banner names fewer than four keywords (object, format, field, symmetry)";
    let object = toks.next().ok_or(header_err(line, few))?;
    let format = toks.next().ok_or(header_err(line, few))?;
    let field = toks.next().ok_or(header_err(line, few))?;
    let symmetry = toks.next().ok_or(header_err(line, few))?;
    if toks.next().is_some() {
        return Err(header_err(line, "the banner has a token after the symmetry keyword"));
    }

    let is = |tok: &[u8], kw: &str| tok.eq_ignore_ascii_case(kw.as_bytes());
    let object = if is(object, "matrix") {
        MtxObject::Matrix
    } else {
        return Err(MtxError::Unsupported { line, what: std::format!("the object `{}`", show(object)) });
    };
    let format = if is(format, "coordinate") {
        MtxFormat::Coordinate
    } else if is(format, "array") {
        MtxFormat::Array
    } else {
        return Err(header_err(line, "the format keyword is neither `coordinate` nor `array`"));
    };
    let field = if is(field, "real") {
        MtxField::Real
    } else if is(field, "integer") {
        MtxField::Integer
    } else if is(field, "pattern") {
        MtxField::Pattern
    } else if is(field, "complex") {
        MtxField::Complex
    } else {
        return Err(header_err(line, "the field keyword is not `real`, `integer`, `pattern` or `complex`"));
    };
    let symmetry = if is(symmetry, "general") {
        MtxSymmetry::General
    } else if is(symmetry, "symmetric") {
        MtxSymmetry::Symmetric
    } else if is(symmetry, "skew-symmetric") {
        MtxSymmetry::SkewSymmetric
    } else if is(symmetry, "hermitian") {
        MtxSymmetry::Hermitian
    } else {
        return Err(header_err(
            line,
            "the symmetry keyword is not `general`, `symmetric`, `skew-symmetric` or `hermitian`",
        ));
    };
    if field == MtxField::Pattern && format == MtxFormat::Array {
        return Err(header_err(line, "the `pattern` field needs the `coordinate` format"));
    }
    if field == MtxField::Pattern && symmetry == MtxSymmetry::SkewSymmetric {
        return Err(header_err(line, "a `pattern` matrix cannot be `skew-symmetric`"));
    }
    if symmetry == MtxSymmetry::Hermitian && field != MtxField::Complex {
        return Err(header_err(line, "`hermitian` symmetry needs the `complex` field"));
    }
    Ok((object, format, field, symmetry))
}

/// Parses the banner and the size line, leaving `lines` on the size line.
fn parse_header<R: BufRead>(lines: &mut Lines<R>) -> Result<MtxHeader, MtxError> {
    let header_err = |line, reason| MtxError::Header { line, reason };
    if !lines.advance()? {
        return Err(header_err(1, "the input is empty instead of starting with a `%%MatrixMarket` banner"));
    }
    let (object, format, field, symmetry) = parse_banner(lines.current(), lines.line)?;
    if !lines.advance_data()? {
        return Err(header_err(lines.line + 1, "the size line is missing"));
    }
    let line = lines.line;
    let want = if format == MtxFormat::Coordinate { 3 } else { 2 };
    let mut size = [0usize; 3];
    let mut count = 0;
    for tok in tokens(lines.current()) {
        if count == want {
            return Err(header_err(
                line,
                if want == 3 {
                    "the size line holds more than three numbers (rows, columns, entries)"
                } else {
                    "the size line holds more than two numbers (rows, columns)"
                },
            ));
        }
        size[count] = parse_usize(tok)
            .ok_or(header_err(line, "the size line holds a token that is not a non-negative integer"))?;
        count += 1;
    }
    if count < want {
        return Err(header_err(
            line,
            if want == 3 {
                "the size line holds fewer than three numbers (rows, columns, entries)"
            } else {
                "the size line holds fewer than two numbers (rows, columns)"
            },
        ));
    }
    let [nrows, ncols, declared] = size;
    if symmetry != MtxSymmetry::General && nrows != ncols {
        return Err(header_err(line, "a symmetric, skew-symmetric or hermitian matrix must be square"));
    }
    let nnz = if format == MtxFormat::Coordinate { declared } else { nrows.saturating_mul(ncols) };
    Ok(MtxHeader { object, format, field, symmetry, nrows, ncols, nnz })
}

/// Parses one entry line into 0-based `(row, col, value)`.
fn parse_entry<T: Scalar>(bytes: &[u8], h: &MtxHeader, line: usize) -> Result<(usize, usize, T), MtxError> {
    let err = |reason| MtxError::Entry { line, reason };
    let mut toks = tokens(bytes);
    let row = toks.next().ok_or(err("the entry is empty"))?;
    let row = parse_usize(row).ok_or(err("the row index is not a non-negative integer"))?;
    let col = toks.next().ok_or(err("the column index is missing"))?;
    let col = parse_usize(col).ok_or(err("the column index is not a non-negative integer"))?;
    if row == 0 || row > h.nrows {
        return Err(err("the row index is 0 or larger than the number of rows"));
    }
    if col == 0 || col > h.ncols {
        return Err(err("the column index is 0 or larger than the number of columns"));
    }
    let val = match h.field {
        MtxField::Pattern => T::ONE,
        MtxField::Real => {
            let tok = toks.next().ok_or(err("the value is missing"))?;
            parse_real::<T>(tok).ok_or(err("the value is not a real number"))?
        }
        MtxField::Integer => {
            let tok = toks.next().ok_or(err("the value is missing"))?;
            let v = core::str::from_utf8(tok).ok().and_then(|s| s.parse::<i64>().ok());
            T::from_f64(v.ok_or(err("the value is not a 64-bit integer"))? as f64)
        }
        MtxField::Complex => return Err(err("complex values are not supported")),
    };
    if toks.next().is_some() {
        return Err(err("the entry has a token after its last field"));
    }
    if h.symmetry == MtxSymmetry::SkewSymmetric && row == col {
        return Err(err("a skew-symmetric matrix has an entry on its diagonal"));
    }
    Ok((row - 1, col - 1, val))
}

/// The entries read so far, with the bound from [`MtxLimits`] and fallible growth.
struct Entries<T> {
    list: Vec<(usize, usize, T)>,
    max: usize,
}

impl<T: Scalar> Entries<T> {
    fn push(&mut self, entry: (usize, usize, T), line: usize) -> Result<(), MtxError> {
        let len = self.list.len();
        if len >= self.max {
            return Err(MtxError::Limit {
                line,
                what: "entries",
                value: len.saturating_add(1),
                max: self.max,
            });
        }
        if len == self.list.capacity() {
            // Amortised doubling, but an allocation failure is an error, not an abort.
            self.list.try_reserve(1).map_err(|_| MtxError::Alloc { what: "entries", len: len + 1 })?;
        }
        self.list.push(entry);
        Ok(())
    }
}

/// `Vec::with_capacity`, failing with [`MtxError::Alloc`] instead of aborting.
fn try_vec<X>(what: &'static str, len: usize) -> Result<Vec<X>, MtxError> {
    crate::formats::try_room(what, len).map_err(|_| MtxError::Alloc { what, len })
}

/// `len` copies of `value` in a vector allocated through [`try_vec`].
fn try_filled<X: Copy>(what: &'static str, len: usize, value: X) -> Result<Vec<X>, MtxError> {
    let mut v = try_vec(what, len)?;
    v.resize(len, value);
    Ok(v)
}

/// CSR arrays: `(row_ptr, col_idx, vals)`.
type CsrArrays<J, T> = (Vec<J>, Vec<J>, Vec<T>);

/// The canonical CSR arrays of the triplets, in index type `J`, trimmed to the distinct
/// entries: duplicates add up in file order. [`Csr::from_triplets`] in buffers allocated
/// fallibly, so the only memory beyond the triplets is the three arrays (no sort
/// scratch: a failed allocation is an error, never an abort).
fn canonical<T: Scalar, J: Index>(
    nrows: usize,
    ncols: usize,
    list: &[(usize, usize, T)],
) -> Result<CsrArrays<J, T>, MtxError> {
    let len = nrows.checked_add(1).ok_or(MtxError::Alloc { what: "row_ptr", len: usize::MAX })?;
    let mut row_ptr = try_filled("row_ptr", len, J::ZERO)?;
    let mut col_idx = try_filled("col_idx", list.len(), J::ZERO)?;
    let mut vals = try_filled("vals", list.len(), T::ZERO)?;
    let nnz = Csr::from_triplets(nrows, ncols, list, &mut row_ptr, &mut col_idx, &mut vals)?.nnz();
    col_idx.truncate(nnz);
    vals.truncate(nnz);
    Ok((row_ptr, col_idx, vals))
}

/// Builds the canonical CSR of the triplets (rows sorted, duplicates added up in file
/// order), allocating only fallibly.
fn assemble<T: Scalar, I: Index>(
    nrows: usize,
    ncols: usize,
    list: Vec<(usize, usize, T)>,
) -> Result<CsrOwned<T, I>, MtxError> {
    if list.len() <= I::MAX_USIZE {
        let (row_ptr, col_idx, vals) = canonical::<T, I>(nrows, ncols, &list)?;
        drop(list);
        return Ok(CsrOwned::from_parts_trusted(nrows, ncols, row_ptr, col_idx, vals, RowOrder::Canonical));
    }
    // More entry lines than `I` counts (duplicates among them, or the matrix does not
    // fit): sorted in `usize` positions, then narrowed to `I` if the distinct ones fit.
    let (wide_ptr, wide_col, vals) = canonical::<T, usize>(nrows, ncols, &list)?;
    drop(list);
    crate::formats::check_dims::<I>(nrows, ncols, vals.len())?;
    let narrow = |what, wide: Vec<usize>| -> Result<Vec<I>, MtxError> {
        let mut v = try_vec(what, wide.len())?;
        // Every value is at most `max(nnz, ncols - 1)`, which was just checked to fit.
        v.extend(wide.iter().map(|&x| I::from_usize_unchecked(x)));
        Ok(v)
    };
    let row_ptr = narrow("row_ptr", wide_ptr)?;
    let col_idx = narrow("col_idx", wide_col)?;
    Ok(CsrOwned::from_parts_trusted(nrows, ncols, row_ptr, col_idx, vals, RowOrder::Canonical))
}

/// Reads a Matrix Market `coordinate` file into a canonical CSR matrix (rows sorted,
/// duplicates summed in file order, explicit zeros kept), with the default
/// [`MtxLimits`].
///
/// Fields `real`, `integer` and `pattern` (value one) are read; `symmetric` entries off
/// the diagonal are mirrored, `skew-symmetric` ones mirrored with the opposite sign. A
/// symmetric file should store one triangle; entries from both are accepted and each is
/// mirrored. Comment (`%`) and blank lines may appear anywhere after the banner; lines may
/// end in `\n` or `\r\n`. `real` values are parsed in the precision of `T`, so a value
/// written by [`write_mtx`] reads back bit for bit.
///
/// # Errors
/// - [`MtxError::Header`]: no banner, an unknown keyword, a malformed size line, or a
///   symmetric kind that is not square;
/// - [`MtxError::Unsupported`]: `array`, `complex` or `hermitian` files;
/// - [`MtxError::Entry`]: a missing, extra or non-numeric token, an index that is 0 or
///   beyond the declared size, a diagonal entry in a skew-symmetric file;
/// - [`MtxError::Count`]: fewer or more entry lines than declared;
/// - [`MtxError::Limit`] / [`MtxError::Alloc`]: the matrix is too large to hold, or a line
///   longer than [`MtxLimits::max_line_len`];
/// - [`MtxError::Format`]: a dimension or the entry count does not fit `I`;
/// - [`MtxError::Io`]: the reader failed, on the line it names.
pub fn read_mtx<T: Scalar, I: Index, R: BufRead>(reader: R) -> Result<CsrOwned<T, I>, MtxError> {
    read_mtx_with(reader, &MtxLimits::default()).map(|(_, a)| a)
}

/// [`read_mtx`] with explicit [`MtxLimits`], also returning the file's [`MtxHeader`].
///
/// # Errors
/// As [`read_mtx`]; [`MtxError::Limit`] names the bound of `limits` that was exceeded.
pub fn read_mtx_with<T: Scalar, I: Index, R: BufRead>(
    reader: R,
    limits: &MtxLimits,
) -> Result<(MtxHeader, CsrOwned<T, I>), MtxError> {
    let mut lines = Lines::new(reader, limits);
    let h = parse_header(&mut lines)?;
    let size_line = lines.line;
    if h.format == MtxFormat::Array {
        return Err(MtxError::Unsupported { line: 1, what: "the `array` format".to_owned() });
    }
    if h.field == MtxField::Complex {
        return Err(MtxError::Unsupported { line: 1, what: "the `complex` field".to_owned() });
    }
    if h.symmetry == MtxSymmetry::Hermitian {
        return Err(MtxError::Unsupported { line: 1, what: "`hermitian` symmetry".to_owned() });
    }
    if h.nrows > limits.max_nrows {
        return Err(MtxError::Limit {
            line: size_line,
            what: "nrows",
            value: h.nrows,
            max: limits.max_nrows,
        });
    }
    if h.nnz > limits.max_entries {
        return Err(MtxError::Limit {
            line: size_line,
            what: "entries",
            value: h.nnz,
            max: limits.max_entries,
        });
    }
    crate::formats::check_dims::<I>(h.nrows, h.ncols, 0)?;

    let mirror = h.symmetry != MtxSymmetry::General;
    let skew = h.symmetry == MtxSymmetry::SkewSymmetric;
    // Trust the declared count for a first reservation only up to a modest size; the
    // vector grows with the entries actually present.
    let mut entries = Entries { list: try_vec("entries", h.nnz.min(1 << 16))?, max: limits.max_entries };
    for got in 0..h.nnz {
        if !lines.advance_data()? {
            return Err(MtxError::Count { line: lines.line + 1, expected: h.nnz, got });
        }
        let line = lines.line;
        let (r, c, v) = parse_entry::<T>(lines.current(), &h, line)?;
        entries.push((r, c, v), line)?;
        if mirror && r != c {
            entries.push((c, r, if skew { -v } else { v }), line)?;
        }
    }
    let mut extra = 0usize;
    let mut first_extra = 0;
    while lines.advance_data()? {
        if extra == 0 {
            first_extra = lines.line;
        }
        extra += 1;
    }
    if extra > 0 {
        return Err(MtxError::Count { line: first_extra, expected: h.nnz, got: h.nnz.saturating_add(extra) });
    }
    let a = assemble(h.nrows, h.ncols, entries.list)?;
    Ok((h, a))
}

/// Reads only the banner and the size line of a Matrix Market file (any kind, including
/// those [`read_mtx`] does not support), leaving the entries unread.
///
/// # Errors
/// [`MtxError::Header`] for a malformed banner or size line, [`MtxError::Unsupported`]
/// for an object other than `matrix`, [`MtxError::Limit`] for a line longer than the
/// default [`MtxLimits::max_line_len`], [`MtxError::Io`] if the reader fails.
pub fn read_mtx_header<R: BufRead>(reader: R) -> Result<MtxHeader, MtxError> {
    parse_header(&mut Lines::new(reader, &MtxLimits::default()))
}

/// Opens `path` and hands `f` a buffered reader of its contents, gunzipped when the file
/// starts with the gzip magic bytes.
fn with_file<O>(path: &Path, f: impl FnOnce(&mut dyn BufRead) -> Result<O, MtxError>) -> Result<O, MtxError> {
    let mut file = File::open(path)?;
    let mut magic = [0u8; 2];
    let mut got = 0;
    while got < magic.len() {
        match file.read(&mut magic[got..]) {
            Ok(0) => break,
            Ok(n) => got += n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e.into()),
        }
    }
    let head = &magic[..got];
    let stream = head.chain(file);
    if head == [0x1f, 0x8b] {
        f(&mut BufReader::with_capacity(1 << 16, MultiGzDecoder::new(stream)))
    } else {
        f(&mut BufReader::with_capacity(1 << 16, stream))
    }
}

/// [`read_mtx`] from a file, gunzipped transparently when it starts with the gzip magic
/// bytes (`.mtx.gz` as SuiteSparse ships it; the name does not matter).
///
/// # Errors
/// As [`read_mtx`]; [`MtxError::Io`] also for a file that cannot be opened or corrupt
/// gzip data.
pub fn read_mtx_path<T: Scalar, I: Index>(path: impl AsRef<Path>) -> Result<CsrOwned<T, I>, MtxError> {
    read_mtx_path_with(path, &MtxLimits::default()).map(|(_, a)| a)
}

/// [`read_mtx_with`] from a file, gunzipped as [`read_mtx_path`] does.
///
/// # Errors
/// As [`read_mtx_path`].
pub fn read_mtx_path_with<T: Scalar, I: Index>(
    path: impl AsRef<Path>,
    limits: &MtxLimits,
) -> Result<(MtxHeader, CsrOwned<T, I>), MtxError> {
    with_file(path.as_ref(), |r| read_mtx_with(r, limits))
}

/// [`read_mtx_header`] from a file, gunzipped as [`read_mtx_path`] does. Reads only the
/// first lines, so it is cheap even for a large file.
///
/// # Errors
/// As [`read_mtx_header`]; [`MtxError::Io`] also for a file that cannot be opened.
pub fn read_mtx_header_path(path: impl AsRef<Path>) -> Result<MtxHeader, MtxError> {
    with_file(path.as_ref(), |r| read_mtx_header(r))
}

// ---------------------------------------------------------------------------------------
// Writing
// ---------------------------------------------------------------------------------------

/// What to write, decided (and the symmetry checked) before any byte is written.
enum Plan<T, I> {
    /// Every stored entry, as stored.
    General,
    /// The canonical form's entries on and below (strictly below for skew) the diagonal.
    Triangle { canonical: CsrOwned<T, I>, skew: bool, count: usize },
}

fn same<T: Scalar>(a: T, b: T) -> bool {
    a == b || (a.to_f64().is_nan() && b.to_f64().is_nan())
}

/// The value at `(row, col)` of a canonical matrix, zero if not stored.
fn lookup<T: Scalar, I: Index>(a: &Csr<'_, T, I>, row: usize, col: usize) -> T {
    a.row(row)
        .and_then(|(cols, vals)| cols.binary_search_by(|c| c.to_usize().cmp(&col)).ok().map(|k| vals[k]))
        .unwrap_or(T::ZERO)
}

fn plan<T: Scalar, I: Index>(a: &Csr<'_, T, I>, symmetry: MtxSymmetry) -> Result<Plan<T, I>, MtxError> {
    let skew = match symmetry {
        MtxSymmetry::General => return Ok(Plan::General),
        MtxSymmetry::Symmetric => false,
        MtxSymmetry::SkewSymmetric => true,
        MtxSymmetry::Hermitian => {
            return Err(MtxError::Unsupported {
                line: 0,
                what: "writing `hermitian` symmetry for a real matrix (use `symmetric`)".to_owned(),
            });
        }
    };
    if a.nrows() != a.ncols() {
        return Err(MtxError::NotSquare { symmetry, nrows: a.nrows(), ncols: a.ncols() });
    }
    // Duplicates and unsorted rows are resolved first, so the check compares sums.
    let mut triplets = try_vec("entries", a.nnz())?;
    triplets.extend(a.iter());
    let canonical = CsrOwned::<T, I>::from_triplets(a.nrows(), a.ncols(), &triplets)?;
    drop(triplets);
    let c = canonical.view();
    let mut count = 0;
    for (row, col, v) in c.iter() {
        let ok = if row == col {
            !skew || v == T::ZERO
        } else {
            let m = lookup(&c, col, row);
            same(v, if skew { -m } else { m })
        };
        if !ok {
            return Err(MtxError::NotSymmetric { symmetry, row, col });
        }
        if col < row || (col == row && !skew) {
            count += 1;
        }
    }
    Ok(Plan::Triangle { canonical, skew, count })
}

fn write_entry<T: Scalar, W: Write>(w: &mut W, row: usize, col: usize, v: T) -> io::Result<()> {
    // `{:e}` prints the shortest digits that read back as the same value of the type.
    if core::mem::size_of::<T>() == 4 {
        writeln!(w, "{} {} {:e}", row + 1, col + 1, v.to_f64() as f32)
    } else {
        writeln!(w, "{} {} {:e}", row + 1, col + 1, v.to_f64())
    }
}

fn emit<T: Scalar, I: Index, W: Write>(
    w: W,
    a: &Csr<'_, T, I>,
    symmetry: MtxSymmetry,
    plan: &Plan<T, I>,
) -> Result<(), MtxError> {
    let mut w = BufWriter::with_capacity(1 << 16, w);
    writeln!(w, "%%MatrixMarket matrix coordinate real {symmetry}")?;
    writeln!(w, "% written by spblas {}", env!("CARGO_PKG_VERSION"))?;
    match plan {
        Plan::General => {
            writeln!(w, "{} {} {}", a.nrows(), a.ncols(), a.nnz())?;
            for (row, col, v) in a.iter() {
                write_entry(&mut w, row, col, v)?;
            }
        }
        Plan::Triangle { canonical, skew, count } => {
            writeln!(w, "{} {} {}", a.nrows(), a.ncols(), count)?;
            for (row, col, v) in canonical.view().iter() {
                if col < row || (col == row && !skew) {
                    write_entry(&mut w, row, col, v)?;
                }
            }
        }
    }
    w.flush()?;
    Ok(())
}

/// Writes `a` as a Matrix Market `coordinate real` file with the given symmetry.
///
/// - [`MtxSymmetry::General`]: every stored entry, in storage order (duplicates stay
///   separate lines; a reader sums them).
/// - [`MtxSymmetry::Symmetric`] / [`MtxSymmetry::SkewSymmetric`]: after summing
///   duplicates, checks that `a_ji == a_ij` (`== -a_ij`, with a zero diagonal; NaN
///   matches NaN, a missing entry counts as zero) and writes the entries on and below
///   (strictly below) the diagonal. Explicit zeros whose mirror is not stored are not
///   written.
///
/// Values are printed with the shortest digits that [`read_mtx`] reads back as the same
/// `T` (bit for bit, except NaN payloads). Output is buffered internally.
///
/// # Errors
/// [`MtxError::NotSquare`] / [`MtxError::NotSymmetric`] for a matrix without the
/// requested symmetry and [`MtxError::Unsupported`] for [`MtxSymmetry::Hermitian`], before
/// anything is written; [`MtxError::Alloc`] if the symmetry check cannot allocate;
/// [`MtxError::Io`] if writing fails, in which case part of the file may be written.
pub fn write_mtx<T: Scalar, I: Index, W: Write>(
    w: W,
    a: &Csr<'_, T, I>,
    symmetry: MtxSymmetry,
) -> Result<(), MtxError> {
    let plan = plan(a, symmetry)?;
    emit(w, a, symmetry, &plan)
}

/// [`write_mtx`] into a new file (replacing one that exists), gzip-compressed when the
/// name ends in `.gz`.
///
/// # Errors
/// As [`write_mtx`]; the symmetry is checked before the file is created. [`MtxError::Io`]
/// if the file cannot be created or written.
pub fn write_mtx_path<T: Scalar, I: Index>(
    path: impl AsRef<Path>,
    a: &Csr<'_, T, I>,
    symmetry: MtxSymmetry,
) -> Result<(), MtxError> {
    let path = path.as_ref();
    let plan = plan(a, symmetry)?;
    let file = File::create(path)?;
    if path.extension().is_some_and(|e| e.eq_ignore_ascii_case("gz")) {
        let mut gz = GzEncoder::new(file, Compression::default());
        emit(&mut gz, a, symmetry, &plan)?;
        gz.finish()?;
    } else {
        emit(file, a, symmetry, &plan)?;
    }
    Ok(())
}
