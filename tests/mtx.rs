//! Matrix Market I/O: parsing every supported kind, exact write -> read round trips
//! (plain and gzip), every error class with its line number, and that no input panics.
#![cfg(feature = "mtx")]
// The temporary-file tests do not run on WebAssembly (no file system under WASI here).
#![cfg_attr(target_family = "wasm", allow(unused_imports, dead_code))]

use std::io::{self, BufRead, Read, Write};
use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};

use proptest::prelude::*;
use spblas::io::{
    MtxError, MtxField, MtxFormat, MtxHeader, MtxLimits, MtxSymmetry, read_mtx, read_mtx_header,
    read_mtx_header_path, read_mtx_path, read_mtx_path_with, read_mtx_with, write_mtx, write_mtx_path,
};
use spblas::{Csr, CsrOwned, FormatError, Index, Scalar};

// ----------------------------------------------------------------------------------------
// helpers
// ----------------------------------------------------------------------------------------

fn read64(text: &str) -> Result<CsrOwned<f64, u32>, MtxError> {
    read_mtx(text.as_bytes())
}

fn dense<T: Scalar, I: Index>(a: &CsrOwned<T, I>) -> Vec<T> {
    let mut out = vec![T::ZERO; a.nrows() * a.ncols()];
    a.view().to_dense(&mut out).unwrap();
    out
}

fn err(text: &str) -> MtxError {
    read64(text).expect_err("input must be rejected")
}

/// Bitwise equality of two CSR matrices (so `-0.0` and `0.0` differ).
fn same_bits<T: Scalar, I: Index>(a: &CsrOwned<T, I>, b: &CsrOwned<T, I>) -> bool {
    let (a, b) = (a.view(), b.view());
    a.shape() == b.shape()
        && a.row_ptr() == b.row_ptr()
        && a.col_idx() == b.col_idx()
        && a.vals().iter().zip(b.vals()).all(|(x, y)| x.to_f64().to_bits() == y.to_f64().to_bits())
}

fn write_to_vec<T: Scalar, I: Index>(a: &Csr<'_, T, I>, symmetry: MtxSymmetry) -> Result<Vec<u8>, MtxError> {
    let mut out = Vec::new();
    write_mtx(&mut out, a, symmetry)?;
    Ok(out)
}

/// A fresh path in the temp dir, unique per process and call.
fn temp_path(name: &str) -> PathBuf {
    static COUNTER: AtomicUsize = AtomicUsize::new(0);
    let n = COUNTER.fetch_add(1, Ordering::Relaxed);
    std::env::temp_dir().join(format!("spblas-mtx-test-{}-{n}-{name}", std::process::id()))
}

/// Removes the file when dropped, also when the test fails.
struct TempFile(PathBuf);
impl Drop for TempFile {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

const BANNER: &str = "%%MatrixMarket matrix coordinate real general\n";

// ----------------------------------------------------------------------------------------
// reading each kind
// ----------------------------------------------------------------------------------------

#[test]
fn reads_real_general_with_comments_duplicates_and_explicit_zeros() {
    let text = "%%MatrixMarket matrix coordinate real general\n\
                % a comment\n\
                %\n\
                \n\
                3 4 6\n\
                3 4 -2.5e1\n\
                1 1 1.5\n\
                % a comment between entries\n\
                2 2 0\n\
                1 1 0.25\n\
                \n\
                1 3 -0.0\n\
                3 1 1e-3\n";
    let a = read64(text).unwrap();
    assert_eq!((a.nrows(), a.ncols()), (3, 4));
    // Duplicates (1, 1) are summed; the explicit zeros at (2, 2) and (1, 3) are kept.
    assert_eq!(a.nnz(), 5);
    assert_eq!(a.view().row_ptr(), &[0, 2, 3, 5]);
    assert_eq!(a.view().col_idx(), &[0, 2, 1, 0, 3]);
    assert_eq!(a.view().vals(), &[1.75, -0.0, 0.0, 1e-3, -25.0]);
    assert!(a.view().vals()[1].is_sign_negative());
}

#[test]
fn reads_integer_general() {
    let text = "%%MatrixMarket matrix coordinate integer general\n2 2 3\n1 1 -3\n2 1 7\n2 2 +4\n";
    let a = read64(text).unwrap();
    assert_eq!(dense(&a), [-3.0, 0.0, 7.0, 4.0]);
}

#[test]
fn reads_pattern_general_as_ones() {
    let text = "%%MatrixMarket matrix coordinate pattern general\n2 3 3\n1 3\n2 1\n1 3\n";
    let a: CsrOwned<f32, u64> = read_mtx(text.as_bytes()).unwrap();
    // The duplicate (1, 3) sums to 2.
    assert_eq!(dense(&a), [0.0, 0.0, 2.0, 1.0, 0.0, 0.0]);
}

#[test]
fn reads_real_symmetric_mirroring_off_diagonal_entries() {
    let text = "%%MatrixMarket matrix coordinate real symmetric\n3 3 4\n1 1 2\n2 1 -1\n3 2 5\n3 3 4\n";
    let a = read64(text).unwrap();
    assert_eq!(a.nnz(), 6);
    assert_eq!(dense(&a), [2.0, -1.0, 0.0, -1.0, 0.0, 5.0, 0.0, 5.0, 4.0]);
}

#[test]
fn reads_integer_and_pattern_symmetric() {
    let text = "%%MatrixMarket matrix coordinate integer symmetric\n2 2 2\n2 1 -6\n2 2 1\n";
    assert_eq!(dense(&read64(text).unwrap()), [0.0, -6.0, -6.0, 1.0]);
    let text = "%%MatrixMarket matrix coordinate pattern symmetric\n2 2 2\n1 1\n2 1\n";
    assert_eq!(dense(&read64(text).unwrap()), [1.0, 1.0, 1.0, 0.0]);
}

#[test]
fn reads_skew_symmetric_with_negated_mirror() {
    let text = "%%MatrixMarket matrix coordinate real skew-symmetric\n3 3 2\n2 1 1.5\n3 1 -2\n";
    let a = read64(text).unwrap();
    assert_eq!(dense(&a), [0.0, -1.5, 2.0, 1.5, 0.0, 0.0, -2.0, 0.0, 0.0]);
    let text = "%%MatrixMarket matrix coordinate integer skew-symmetric\n2 2 1\n2 1 3\n";
    assert_eq!(dense(&read64(text).unwrap()), [0.0, -3.0, 3.0, 0.0]);
}

#[test]
fn keywords_are_case_insensitive() {
    let text = "%%matrixmarket MATRIX Coordinate REAL Symmetric\n2 2 1\n2 1 3\n";
    assert_eq!(dense(&read64(text).unwrap()), [0.0, 3.0, 3.0, 0.0]);
    let text = "%%MATRIXMARKET matrix coordinate Pattern GENERAL\n1 1 1\n1 1\n";
    assert_eq!(dense(&read64(text).unwrap()), [1.0]);
}

#[test]
fn accepts_crlf_tabs_and_missing_final_newline() {
    let text =
        "%%MatrixMarket\tmatrix coordinate real general\r\n% c\r\n\r\n 2  2\t2 \r\n1\t1   3.0\r\n 2 2 -1e0";
    assert_eq!(dense(&read64(text).unwrap()), [3.0, 0.0, 0.0, -1.0]);
}

#[test]
fn accepts_special_float_spellings() {
    let text = format!("{BANNER}1 4 4\n1 1 inf\n1 2 -Infinity\n1 3 NaN\n1 4 .5E+1\n");
    let a = read64(&text).unwrap();
    let v = a.view().vals();
    assert_eq!(v[0], f64::INFINITY);
    assert_eq!(v[1], f64::NEG_INFINITY);
    assert!(v[2].is_nan());
    assert_eq!(v[3], 5.0);
}

#[test]
fn reads_empty_and_degenerate_shapes() {
    for (size, shape) in [("0 0 0", (0, 0)), ("3 0 0", (3, 0)), ("0 5 0", (0, 5)), ("2 2 0", (2, 2))] {
        let a = read64(&format!("{BANNER}{size}\n")).unwrap();
        assert_eq!((a.nrows(), a.ncols(), a.nnz()), (shape.0, shape.1, 0));
    }
}

#[test]
fn reads_f32_values_without_double_rounding() {
    // Just below the midpoint between 1 + 2^-23 and 1 + 2^-22: the nearest f32 is
    // 1 + 2^-23, while rounding through f64 would land on the midpoint and tie to even.
    let text = format!("{BANNER}1 1 1\n1 1 1.000000178813934326171874999\n");
    let a: CsrOwned<f32, u32> = read_mtx(text.as_bytes()).unwrap();
    assert_eq!(a.view().vals()[0].to_bits(), 0x3f80_0001);
}

#[test]
fn header_reports_every_kind() {
    let h = read_mtx_header("%%MatrixMarket matrix coordinate complex hermitian\n% c\n4 4 7\n".as_bytes())
        .unwrap();
    assert_eq!(
        (h.format, h.field, h.symmetry, h.nrows, h.ncols, h.nnz),
        (MtxFormat::Coordinate, MtxField::Complex, MtxSymmetry::Hermitian, 4, 4, 7)
    );
    let h = read_mtx_header("%%MatrixMarket matrix array real general\n3 5\n".as_bytes()).unwrap();
    assert_eq!((h.format, h.field, h.nrows, h.ncols, h.nnz), (MtxFormat::Array, MtxField::Real, 3, 5, 15));
    let h =
        read_mtx_header("%%MatrixMarket matrix coordinate pattern symmetric\n2 2 1\n".as_bytes()).unwrap();
    assert_eq!((h.field, h.symmetry), (MtxField::Pattern, MtxSymmetry::Symmetric));
    // The header only reads the first lines: entries after it may be anything.
    let h = read_mtx_header(format!("{BANNER}2 3 9\ngarbage\n").as_bytes()).unwrap();
    assert_eq!((h.nrows, h.ncols, h.nnz), (2, 3, 9));

    let text = "%%MatrixMarket matrix coordinate integer skew-symmetric\n2 2 1\n2 1 3\n";
    let (h, a): (MtxHeader, CsrOwned<f64, usize>) =
        read_mtx_with(text.as_bytes(), &MtxLimits::default()).unwrap();
    assert_eq!((h.field, h.symmetry, h.nnz), (MtxField::Integer, MtxSymmetry::SkewSymmetric, 1));
    assert_eq!(a.nnz(), 2);
    assert_eq!(h.symmetry.to_string(), "skew-symmetric");
}

// ----------------------------------------------------------------------------------------
// errors, each with its line
// ----------------------------------------------------------------------------------------

fn header_line(e: &MtxError) -> usize {
    match e {
        MtxError::Header { line, .. } => *line,
        other => panic!("expected a header error, got {other:?}"),
    }
}

fn entry_line(e: &MtxError) -> usize {
    match e {
        MtxError::Entry { line, .. } => *line,
        other => panic!("expected an entry error, got {other:?}"),
    }
}

fn unsupported_line(e: &MtxError) -> usize {
    match e {
        MtxError::Unsupported { line, .. } => *line,
        other => panic!("expected an unsupported error, got {other:?}"),
    }
}

#[test]
fn banner_errors_name_line_one() {
    for text in [
        "",
        "\n",
        "3 3 1\n1 1 1\n",
        "% just a comment\n",
        "%%MatrixMarketX matrix coordinate real general\n1 1 0\n",
        "%%MatrixMarket matrix coordinate real\n1 1 0\n",
        "%%MatrixMarket matrix coordinate real general extra\n1 1 0\n",
        "%%MatrixMarket matrix sparse real general\n1 1 0\n",
        "%%MatrixMarket matrix coordinate float general\n1 1 0\n",
        "%%MatrixMarket matrix coordinate real upper\n1 1 0\n",
        "%%MatrixMarket matrix coordinate real hermitian\n1 1 0\n",
        "%%MatrixMarket matrix coordinate pattern skew-symmetric\n1 1 0\n",
        "%%MatrixMarket matrix array pattern general\n1 1\n",
    ] {
        assert_eq!(header_line(&err(text)), 1, "{text:?}");
    }
}

#[test]
fn size_line_errors_name_their_line() {
    // Banner, two comments, a blank line: the size line is line 5.
    let pre = "%%MatrixMarket matrix coordinate real general\n% c\n%\n\n";
    for size in ["3 x 2", "3 3", "3 3 1 1", "-3 3 1", "3 3 1.0", "99999999999999999999999 1 0"] {
        assert_eq!(header_line(&err(&format!("{pre}{size}\n"))), 5, "{size}");
    }
    // Missing size line: one past the last line.
    assert_eq!(header_line(&err(pre)), 5);
    assert_eq!(header_line(&err("%%MatrixMarket matrix coordinate real general")), 2);
    // Symmetric kinds must be square.
    let e = err("%%MatrixMarket matrix coordinate real symmetric\n% c\n2 3 0\n");
    assert_eq!(header_line(&e), 3);
    let e = err("%%MatrixMarket matrix coordinate real skew-symmetric\n3 2 0\n");
    assert_eq!(header_line(&e), 2);
    // An array size line has two numbers, so three is an error there.
    let e = read_mtx_header("%%MatrixMarket matrix array real general\n3 5 1\n".as_bytes()).unwrap_err();
    assert_eq!(header_line(&e), 2);
}

#[test]
fn unsupported_kinds_are_refused_at_the_banner() {
    for text in [
        "%%MatrixMarket matrix array real general\n2 2\n1\n2\n3\n4\n",
        "%%MatrixMarket matrix coordinate complex general\n1 1 1\n1 1 1 0\n",
        "%%MatrixMarket matrix coordinate complex hermitian\n1 1 1\n1 1 1 0\n",
        "%%MatrixMarket vector coordinate real general\n3 1\n1 1\n",
    ] {
        let e = err(text);
        assert_eq!(unsupported_line(&e), 1, "{text:?}");
        assert!(e.to_string().ends_with("is not supported."), "{e}");
    }
}

#[test]
fn entry_errors_name_their_line() {
    // Banner, size line, one good entry, a comment: the bad entry is on line 5.
    let cases = [
        ("0 1 1", "row index is 0"),
        ("4 1 1", "row index is 0 or larger"),
        ("1 0 1", "column index is 0"),
        ("1 3 1", "column index is 0 or larger"),
        ("-1 1 1", "row index is not"),
        ("1 x 1", "column index is not"),
        ("18446744073709551616 1 1", "row index is not"),
        ("1", "column index is missing"),
        ("1 1", "value is missing"),
        ("1 1 abc", "not a real number"),
        ("1 1 1.0d0", "not a real number"),
        ("1 1 1 2", "token after its last field"),
    ];
    for (entry, reason_part) in cases {
        let text = format!("{BANNER}3 2 3\n1 1 1\n% c\n{entry}\n2 2 2\n");
        let e = err(&text);
        assert_eq!(entry_line(&e), 5, "{entry}");
        assert!(e.to_string().contains(reason_part), "{entry}: {e}");
        assert!(e.to_string().contains("line 5"), "{e}");
    }
    // Invalid UTF-8 in a token is an entry error, not an I/O error.
    let mut bytes = format!("{BANNER}1 1 1\n1 1 ").into_bytes();
    bytes.extend_from_slice(&[0xff, 0xfe, b'\n']);
    let e = read_mtx::<f64, u32, _>(&bytes[..]).unwrap_err();
    assert_eq!(entry_line(&e), 3);

    let int = "%%MatrixMarket matrix coordinate integer general\n2 2 2\n1 1 3\n";
    for value in ["1.5", "99999999999999999999", "1e3"] {
        assert_eq!(entry_line(&err(&format!("{int}2 2 {value}\n"))), 4, "{value}");
    }
    let pattern = "%%MatrixMarket matrix coordinate pattern general\n2 2 2\n1 1\n";
    assert_eq!(entry_line(&err(&format!("{pattern}2 2 1.0\n"))), 4);
    // A skew-symmetric file may not store the diagonal.
    let e = err("%%MatrixMarket matrix coordinate real skew-symmetric\n2 2 2\n2 1 1\n2 2 0\n");
    assert_eq!(entry_line(&e), 4);
    assert!(e.to_string().contains("diagonal"));
}

#[test]
fn too_few_entries_name_the_line_after_the_end() {
    // 4 lines; the third entry would be line 5.
    match err(&format!("{BANNER}2 2 3\n1 1 1\n2 2 2\n")) {
        MtxError::Count { line, expected, got } => assert_eq!((line, expected, got), (5, 3, 2)),
        other => panic!("{other:?}"),
    }
    // Trailing comments and blank lines count as lines but not as entries.
    match err(&format!("{BANNER}2 2 3\n1 1 1\n% c\n\n")) {
        MtxError::Count { line, expected, got } => assert_eq!((line, expected, got), (6, 3, 1)),
        other => panic!("{other:?}"),
    }
}

#[test]
fn too_many_entries_name_the_first_extra_line() {
    let e = err(&format!("{BANNER}2 2 1\n1 1 1\n% c\n\n2 2 2\n1 2 3\n"));
    match e {
        MtxError::Count { line, expected, got } => assert_eq!((line, expected, got), (6, 1, 3)),
        ref other => panic!("{other:?}"),
    }
    assert!(e.to_string().contains("line 6"), "{e}");
}

#[test]
fn limits_bound_rows_and_entries() {
    // The default row bound stops a tiny file from asking for a huge row pointer.
    let e = err(&format!("{BANNER}% c\n4000000000 1 0\n"));
    match e {
        MtxError::Limit { line, what, value, .. } => {
            assert_eq!((line, what, value), (3, "nrows", 4_000_000_000))
        }
        other => panic!("{other:?}"),
    }
    let limits = MtxLimits::new(10, 3);
    let read = |text: &str| read_mtx_with::<f64, u32, _>(text.as_bytes(), &limits).map(|(_, a)| a);
    assert!(matches!(
        read(&format!("{BANNER}11 1 0\n")),
        Err(MtxError::Limit { line: 2, what: "nrows", .. })
    ));
    assert!(matches!(
        read(&format!("{BANNER}10 1 4\n")),
        Err(MtxError::Limit { line: 2, what: "entries", .. })
    ));
    // Mirroring adds entries: the second off-diagonal entry (line 4) makes four.
    let sym = "%%MatrixMarket matrix coordinate real symmetric\n3 3 2\n2 1 1\n3 1 1\n";
    assert!(matches!(read(sym), Err(MtxError::Limit { line: 4, what: "entries", value: 4, max: 3 })));
    assert!(read(&format!("{BANNER}10 1 3\n1 1 1\n2 1 1\n3 1 1\n")).is_ok());
}

#[test]
fn lines_longer_than_the_limit_are_errors_naming_their_line() {
    let limits = MtxLimits::default().with_max_line_len(16);
    assert_eq!(MtxLimits::default().max_line_len, 1 << 20);
    let read = |text: &str| read_mtx_with::<f64, u32, _>(text.as_bytes(), &limits).map(|(_, a)| a);
    let banner = "%%MatrixMarket matrix coordinate pattern general\n";
    assert!(banner.len() > 16);
    // The banner is line 1 too.
    assert!(matches!(read(banner), Err(MtxError::Limit { line: 1, what: "line length", max: 16, .. })));
    let limits = MtxLimits::default().with_max_line_len(banner.len() - 1);
    // Whole, and in chunks of 1 to 4 bytes (a `\r\n` split, a limit met at a chunk's end).
    let read = |text: &str| {
        let whole = read_mtx_with::<f64, u32, _>(text.as_bytes(), &limits).map(|(_, a)| a);
        for cap in 1..=4 {
            let chunked =
                read_mtx_with::<f64, u32, _>(io::BufReader::with_capacity(cap, text.as_bytes()), &limits);
            let same = match (&whole, &chunked) {
                (Ok(a), Ok((_, b))) => a == b,
                (Err(MtxError::Limit { line: l, .. }), Err(MtxError::Limit { line: m, .. })) => l == m,
                _ => false,
            };
            assert!(same, "{whole:?} whole, {chunked:?} in chunks of {cap}");
        }
        whole
    };
    let comment = |len: usize| format!("%{}", "c".repeat(len - 1));
    let max = banner.len() - 1;
    // Exactly `max` bytes, ended by `\n`, `\r\n` or the end of the input: accepted.
    assert!(read(&format!("{banner}{}\n2 2 1\n1 1\n", comment(max))).is_ok());
    assert!(read(&format!("{banner}{}\r\n2 2 1\r\n1 1\r\n", comment(max))).is_ok());
    assert!(read(&format!("{banner}2 2 1\n1 1\n{}", comment(max))).is_ok());
    // One byte more, however it ends: refused, naming the line.
    for end in ["\n", "\r\n", "", "x\n"] {
        let text = format!("{banner}2 2 1\n% c\n{}{end}1 1\n", comment(max + 1));
        let e = read(&text).unwrap_err();
        assert!(
            matches!(e, MtxError::Limit { line: 4, what: "line length", max: m, .. } if m == max),
            "{e:?}"
        );
        assert_eq!(e.line(), Some(4));
        assert!(e.to_string().contains("line 4 is longer than"), "{e}");
    }
    // A `\r` that does not end the line counts.
    let text = format!("{banner}{}\rc\n2 2 0\n", comment(max - 1));
    assert!(matches!(read(&text), Err(MtxError::Limit { line: 2, what: "line length", .. })));
    // An entry line is held to the limit as well.
    let text = format!("{banner}2 2 1\n1 1{}\n", " ".repeat(max));
    assert!(matches!(read(&text), Err(MtxError::Limit { line: 3, what: "line length", .. })));
    // `read_mtx_header` applies the default.
    let long = format!("{banner}%{}\n2 2 0\n", "c".repeat(1 << 20));
    let e = read_mtx_header(long.as_bytes()).unwrap_err();
    assert!(matches!(e, MtxError::Limit { line: 2, what: "line length", max: 1_048_576, .. }), "{e:?}");
}

// 100 MB of one comment line, made as it is read: refused once the limit is passed, not
// after the whole line is read (the memory it takes is measured in `tests/mtx_memory.rs`).
#[test]
fn an_endless_comment_line_is_refused_without_reading_it_whole() {
    let head = "%%MatrixMarket matrix coordinate real general\n%";
    let total = 100 << 20;
    let mut stream = io::BufReader::new(head.as_bytes().chain(io::repeat(b'x').take(total)));
    let e = read_mtx::<f64, u32, _>(&mut stream).unwrap_err();
    assert!(matches!(e, MtxError::Limit { line: 2, what: "line length", .. }), "{e:?}");
    let unread = stream.into_inner().into_inner().1.limit();
    assert!(unread > total - (2 << 20), "only {unread} of {total} bytes left unread");
}

#[test]
fn dimensions_that_do_not_fit_the_index_type_are_format_errors() {
    let e = err(&format!("{BANNER}2 4294967295 0\n"));
    assert!(matches!(e, MtxError::Format(FormatError::TooLarge { what: "ncols", .. })), "{e:?}");
    assert!(std::error::Error::source(&e).is_some());
    // The same file is fine with u64 indices (where `usize` holds the dimension).
    #[cfg(target_pointer_width = "64")]
    assert!(read_mtx::<f64, u64, _>(format!("{BANNER}2 4294967295 0\n").as_bytes()).is_ok());
}

// Sizes past 2^32: a 64-bit `usize`.
#[cfg(target_pointer_width = "64")]
#[test]
fn impossible_allocations_are_errors_not_aborts() {
    let limits = MtxLimits::new(usize::MAX, usize::MAX);
    // `nrows + 1` would overflow: rejected before any allocation.
    let text = format!("{BANNER}{} 1 0\n", usize::MAX);
    let e = read_mtx_with::<f64, u64, _>(text.as_bytes(), &limits).unwrap_err();
    assert!(matches!(e, MtxError::Format(FormatError::TooLarge { what: "nrows", .. })), "{e:?}");
    let text = format!("{BANNER}{} 1 0\n", 1usize << 62);
    let e = read_mtx_with::<f64, u64, _>(text.as_bytes(), &limits).unwrap_err();
    assert!(matches!(e, MtxError::Alloc { what: "row_ptr", .. }), "{e:?}");
    // A huge declared count is not reserved up front: it only fails the count check.
    let text = format!("{BANNER}2 2 {}\n1 1 1\n", usize::MAX);
    let e = read_mtx_with::<f64, u64, _>(text.as_bytes(), &limits).unwrap_err();
    assert!(matches!(e, MtxError::Count { line: 4, got: 1, .. }), "{e:?}");
}

struct FailingReader;
impl Read for FailingReader {
    fn read(&mut self, _: &mut [u8]) -> io::Result<usize> {
        Err(io::Error::other("disk on fire"))
    }
}
impl BufRead for FailingReader {
    fn fill_buf(&mut self) -> io::Result<&[u8]> {
        Err(io::Error::other("disk on fire"))
    }
    fn consume(&mut self, _: usize) {}
}

// Temporary files: none under WASI without a preopened directory.
#[cfg(not(target_family = "wasm"))]
#[test]
fn reader_failures_are_io_errors_with_a_source() {
    let e = read_mtx::<f64, u32, _>(FailingReader).unwrap_err();
    assert!(matches!(e, MtxError::Io(_)));
    let source = std::error::Error::source(&e).expect("io source");
    assert_eq!(source.to_string(), "disk on fire");
    let e = read_mtx_path::<f64, u32>(temp_path("does-not-exist.mtx")).unwrap_err();
    assert!(matches!(e, MtxError::Io(ref source) if source.kind() == io::ErrorKind::NotFound), "{e:?}");
}

#[test]
fn every_error_displays_as_one_sentence() {
    let errors = [
        err(""),
        err(&format!("{BANNER}x\n")),
        err(&format!("{BANNER}1 1 1\n1 2 1\n")),
        err(&format!("{BANNER}1 1 2\n1 1 1\n")),
        err(&format!("{BANNER}1 1 1\n1 1 1\n1 1 1\n")),
        err("%%MatrixMarket matrix array real general\n1 1\n1\n"),
        err(&format!("{BANNER}2 4294967295 0\n")),
        err(&format!("{BANNER}4000000000 1 0\n")),
        read_mtx::<f64, u32, _>(FailingReader).unwrap_err(),
        read_mtx::<f64, u32, _>(io::BufReader::new(FailsAfter(format!("{BANNER}1 1 1\n").as_bytes())))
            .unwrap_err(),
        read_mtx_with::<f64, u32, _>(
            format!("{BANNER}% a long comment\n").as_bytes(),
            &MtxLimits::default().with_max_line_len(10),
        )
        .unwrap_err(),
        write_to_vec(&CsrOwned::<f64, u32>::from_triplets(1, 2, &[]).unwrap().view(), MtxSymmetry::Symmetric)
            .unwrap_err(),
        write_to_vec(
            &CsrOwned::<f64, u32>::from_triplets(2, 2, &[(0, 1, 1.0)]).unwrap().view(),
            MtxSymmetry::Symmetric,
        )
        .unwrap_err(),
        write_to_vec(&CsrOwned::<f64, u32>::from_triplets(1, 1, &[]).unwrap().view(), MtxSymmetry::Hermitian)
            .unwrap_err(),
        read_mtx_with::<f64, u64, _>(
            format!("{BANNER}{} 1 0\n", usize::MAX).as_bytes(),
            &MtxLimits::new(usize::MAX, usize::MAX),
        )
        .unwrap_err(),
    ];
    for e in &errors {
        let s = e.to_string();
        assert!(s.ends_with('.'), "{s}");
        assert!(!s.contains('\n'), "{s}");
        assert_eq!(s.matches(". ").count(), 0, "{s}");
    }
}

// ----------------------------------------------------------------------------------------
// writing
// ----------------------------------------------------------------------------------------

#[test]
fn write_general_round_trips_extreme_values_exactly() {
    let vals64 = [
        0.0,
        -0.0,
        1.0,
        -1.5,
        0.1,
        1.0 / 3.0,
        f64::MAX,
        f64::MIN,
        f64::MIN_POSITIVE,
        5e-324,
        -f64::MIN_POSITIVE / 3.0,
        f64::INFINITY,
        f64::NEG_INFINITY,
        123456789.125,
    ];
    let trip: Vec<_> = vals64.iter().enumerate().map(|(k, &v)| (k % 4, k, v)).collect();
    let a = CsrOwned::<f64, u32>::from_triplets(4, vals64.len(), &trip).unwrap();
    let text = write_to_vec(&a.view(), MtxSymmetry::General).unwrap();
    let b: CsrOwned<f64, u32> = read_mtx(&text[..]).unwrap();
    assert!(same_bits(&a, &b));

    let vals32: Vec<f32> = [
        0.0f32,
        -0.0,
        0.1,
        1.0 / 3.0,
        f32::MAX,
        f32::MIN_POSITIVE,
        1e-45,
        -3.4e-39,
        f32::INFINITY,
        16777215.0,
    ]
    .to_vec();
    let trip: Vec<_> = vals32.iter().enumerate().map(|(k, &v)| (0, k, v)).collect();
    let a = CsrOwned::<f32, u64>::from_triplets(1, vals32.len(), &trip).unwrap();
    let text = write_to_vec(&a.view(), MtxSymmetry::General).unwrap();
    let b: CsrOwned<f32, u64> = read_mtx(&text[..]).unwrap();
    assert!(same_bits(&a, &b));
    // f32 values are printed with f32's shortest digits, not f64's.
    assert!(String::from_utf8(text).unwrap().contains(" 1e-1\n"));
}

#[test]
fn write_general_keeps_stored_duplicates_which_read_back_summed() {
    let row_ptr = [0u32, 3, 3];
    let col_idx = [2u32, 0, 2];
    let vals = [1.0f64, 2.0, 4.0];
    let a = Csr::new(2, 3, &row_ptr, &col_idx, &vals).unwrap();
    let text = String::from_utf8(write_to_vec(&a, MtxSymmetry::General).unwrap()).unwrap();
    assert!(text.starts_with("%%MatrixMarket matrix coordinate real general\n"));
    assert!(text.contains("\n2 3 3\n1 3 1e0\n1 1 2e0\n1 3 4e0\n"), "{text}");
    let b: CsrOwned<f64, u32> = read_mtx(text.as_bytes()).unwrap();
    assert_eq!(dense(&b), [2.0, 0.0, 5.0, 0.0, 0.0, 0.0]);
}

#[test]
fn write_symmetric_stores_the_lower_triangle() {
    // Unsorted with duplicates: (1, 0) = 1 + 2 mirrors (0, 1) = 3.
    let row_ptr = [0u32, 2, 5, 6];
    let col_idx = [1u32, 0, 0, 1, 0, 2];
    let vals = [3.0f64, 7.0, 1.0, -4.0, 2.0, 9.0];
    let a = Csr::new(3, 3, &row_ptr, &col_idx, &vals).unwrap();
    let text = String::from_utf8(write_to_vec(&a, MtxSymmetry::Symmetric).unwrap()).unwrap();
    assert!(text.starts_with("%%MatrixMarket matrix coordinate real symmetric\n"), "{text}");
    assert!(text.ends_with("\n3 3 4\n1 1 7e0\n2 1 3e0\n2 2 -4e0\n3 3 9e0\n"), "{text}");
    let b: CsrOwned<f64, u32> = read_mtx(text.as_bytes()).unwrap();
    let mut want = vec![0.0; 9];
    a.to_dense(&mut want).unwrap();
    assert_eq!(dense(&b), want);
}

#[test]
fn write_skew_symmetric_round_trips_and_checks_the_diagonal() {
    let trip = [(1, 0, 2.5), (0, 1, -2.5), (2, 1, -1.0), (1, 2, 1.0), (0, 0, 0.0)];
    let a = CsrOwned::<f64, u32>::from_triplets(3, 3, &trip).unwrap();
    let text = write_to_vec(&a.view(), MtxSymmetry::SkewSymmetric).unwrap();
    let text = String::from_utf8(text).unwrap();
    // The explicit zero on the diagonal cannot be stored in a skew-symmetric file.
    assert!(text.ends_with("\n3 3 2\n2 1 2.5e0\n3 2 -1e0\n"), "{text}");
    let b: CsrOwned<f64, u32> = read_mtx(text.as_bytes()).unwrap();
    assert_eq!(dense(&a), dense(&b));

    let a = CsrOwned::<f64, u32>::from_triplets(2, 2, &[(1, 1, 1.0)]).unwrap();
    let e = write_to_vec(&a.view(), MtxSymmetry::SkewSymmetric).unwrap_err();
    assert!(matches!(e, MtxError::NotSymmetric { row: 1, col: 1, symmetry: MtxSymmetry::SkewSymmetric }));
    // Symmetric, but not skew.
    let a = CsrOwned::<f64, u32>::from_triplets(2, 2, &[(1, 0, 1.0), (0, 1, 1.0)]).unwrap();
    let e = write_to_vec(&a.view(), MtxSymmetry::SkewSymmetric).unwrap_err();
    assert!(matches!(e, MtxError::NotSymmetric { row: 0, col: 1, .. }), "{e:?}");
}

// Temporary files: none under WASI without a preopened directory.
#[cfg(not(target_family = "wasm"))]
#[test]
fn write_symmetric_refuses_without_writing_anything() {
    let mut out = Vec::new();
    let a = CsrOwned::<f64, u32>::from_triplets(2, 3, &[]).unwrap();
    let e = write_mtx(&mut out, &a.view(), MtxSymmetry::Symmetric).unwrap_err();
    assert!(matches!(e, MtxError::NotSquare { nrows: 2, ncols: 3, .. }));
    // (2, 0) has no mirror, (0, 1) and (1, 0) differ.
    let a = CsrOwned::<f64, u32>::from_triplets(3, 3, &[(0, 1, 1.0), (1, 0, 2.0), (2, 0, 5.0)]).unwrap();
    let e = write_mtx(&mut out, &a.view(), MtxSymmetry::Symmetric).unwrap_err();
    assert!(matches!(e, MtxError::NotSymmetric { row: 0, col: 1, .. }), "{e:?}");
    let a = CsrOwned::<f64, u32>::from_triplets(3, 3, &[(2, 0, 5.0)]).unwrap();
    let e = write_mtx(&mut out, &a.view(), MtxSymmetry::Symmetric).unwrap_err();
    assert!(matches!(e, MtxError::NotSymmetric { row: 2, col: 0, .. }), "{e:?}");
    let e = write_mtx(&mut out, &a.view(), MtxSymmetry::Hermitian).unwrap_err();
    assert!(matches!(e, MtxError::Unsupported { line: 0, .. }));
    assert!(out.is_empty());
    // An explicit zero without a mirror is symmetric (a missing entry is zero); NaN
    // matches NaN.
    let a = CsrOwned::<f64, u32>::from_triplets(3, 3, &[(0, 1, f64::NAN), (1, 0, f64::NAN), (2, 0, 0.0)])
        .unwrap();
    assert!(write_mtx(&mut out, &a.view(), MtxSymmetry::Symmetric).is_ok());
    // The path writer checks before creating the file.
    let path = temp_path("refused.mtx");
    let a = CsrOwned::<f64, u32>::from_triplets(2, 3, &[]).unwrap();
    assert!(write_mtx_path(&path, &a.view(), MtxSymmetry::Symmetric).is_err());
    assert!(!path.exists());
}

struct FailingWriter;
impl Write for FailingWriter {
    fn write(&mut self, _: &[u8]) -> io::Result<usize> {
        Err(io::Error::other("full"))
    }
    fn flush(&mut self) -> io::Result<()> {
        Err(io::Error::other("full"))
    }
}

#[test]
fn writer_failures_are_io_errors() {
    let a = CsrOwned::<f64, u32>::from_triplets(1, 1, &[(0, 0, 1.0)]).unwrap();
    let e = write_mtx(FailingWriter, &a.view(), MtxSymmetry::General).unwrap_err();
    assert!(matches!(e, MtxError::Io(_)));
}

// ----------------------------------------------------------------------------------------
// files and gzip
// ----------------------------------------------------------------------------------------

fn sample() -> CsrOwned<f64, u32> {
    let trip: Vec<_> = (0..200).map(|k| (k % 37, (k * 7) % 41, k as f64 / 7.0 - 3.0)).collect();
    CsrOwned::from_triplets(37, 41, &trip).unwrap()
}

// Temporary files: none under WASI without a preopened directory.
#[cfg(not(target_family = "wasm"))]
#[test]
fn gzip_files_round_trip_through_temp_files() {
    let a = sample();
    let gz = TempFile(temp_path("sample.mtx.gz"));
    write_mtx_path(&gz.0, &a.view(), MtxSymmetry::General).unwrap();
    let bytes = std::fs::read(&gz.0).unwrap();
    assert_eq!(&bytes[..2], &[0x1f, 0x8b], "a .gz name is written compressed");
    let b: CsrOwned<f64, u32> = read_mtx_path(&gz.0).unwrap();
    assert!(same_bits(&a, &b));
    let h = read_mtx_header_path(&gz.0).unwrap();
    assert_eq!((h.nrows, h.ncols, h.nnz), (37, 41, a.nnz()));

    // Detection is by content, not by name.
    let renamed = TempFile(temp_path("sample-gzipped.mtx"));
    std::fs::write(&renamed.0, &bytes).unwrap();
    let (h, b) = read_mtx_path_with::<f64, u32>(&renamed.0, &MtxLimits::default()).unwrap();
    assert_eq!(h.symmetry, MtxSymmetry::General);
    assert!(same_bits(&a, &b));

    // A plain name is written uncompressed and read the same.
    let plain = TempFile(temp_path("sample.mtx"));
    write_mtx_path(&plain.0, &a.view(), MtxSymmetry::General).unwrap();
    assert!(std::fs::read(&plain.0).unwrap().starts_with(b"%%MatrixMarket"));
    let b: CsrOwned<f64, u32> = read_mtx_path(&plain.0).unwrap();
    assert!(same_bits(&a, &b));
}

// Temporary files: none under WASI without a preopened directory.
#[cfg(not(target_family = "wasm"))]
#[test]
fn gzip_with_several_members_and_tiny_files() {
    let text = format!("{BANNER}2 2 2\n1 1 1\n2 2 2\n");
    let (first, second) = text.split_at(50);
    let mut bytes = Vec::new();
    for part in [first, second] {
        let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        enc.write_all(part.as_bytes()).unwrap();
        bytes.extend(enc.finish().unwrap());
    }
    let f = TempFile(temp_path("multi.mtx.gz"));
    std::fs::write(&f.0, &bytes).unwrap();
    let a: CsrOwned<f64, u32> = read_mtx_path(&f.0).unwrap();
    assert_eq!(dense(&a), [1.0, 0.0, 0.0, 2.0]);

    // Truncated gzip data is an I/O error.
    std::fs::write(&f.0, &bytes[..bytes.len() / 3]).unwrap();
    assert!(matches!(read_mtx_path::<f64, u32>(&f.0), Err(MtxError::Io(_))));
    // Files shorter than the magic: empty, and a lone 0x1f.
    std::fs::write(&f.0, b"").unwrap();
    assert!(matches!(read_mtx_path::<f64, u32>(&f.0), Err(MtxError::Header { line: 1, .. })));
    std::fs::write(&f.0, [0x1f]).unwrap();
    assert!(matches!(read_mtx_path::<f64, u32>(&f.0), Err(MtxError::Header { line: 1, .. })));
}

/// A `real general` file of `n` entry lines (line `k + 3` the `k`-th), and the same file
/// gzipped in stored (uncompressed) blocks, so the blocks can be found and corrupted.
fn stored_gzip(n: usize) -> (String, Vec<u8>) {
    use std::fmt::Write as _;
    let mut text = format!("{BANNER}100 100 {n}\n");
    for k in 0..n {
        writeln!(text, "{} {} {}.{}", k % 100 + 1, k / 100 % 100 + 1, k, k % 13).unwrap();
    }
    let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::none());
    enc.write_all(text.as_bytes()).unwrap();
    (text, enc.finish().unwrap())
}

/// The line in progress after `bytes` bytes of `text`.
fn line_at(text: &str, bytes: usize) -> usize {
    text.as_bytes()[..bytes].iter().filter(|&&b| b == b'\n').count() + 1
}

/// The lines a reader can be on when a gzip stream fails after `good` bytes of `text`: the
/// decoder may hold back output up to its 64 KiB of buffers when it fails.
fn reached(text: &str, good: usize) -> std::ops::RangeInclusive<usize> {
    line_at(text, good.saturating_sub(64 << 10))..=line_at(text, good)
}

fn gunzip(gz: &[u8]) -> impl BufRead + '_ {
    io::BufReader::new(flate2::read::MultiGzDecoder::new(gz))
}

#[test]
fn gzip_corrupt_in_the_middle_names_the_line_reached() {
    let (text, gz) = stored_gzip(20_000);
    // Walk the stored blocks (a header byte, LEN, NLEN, the data) to one in the middle,
    // and break its NLEN, which must be LEN's complement.
    let (mut pos, mut out) = (10, 0);
    while out < text.len() / 2 {
        let len = usize::from(u16::from_le_bytes([gz[pos + 1], gz[pos + 2]]));
        assert_eq!(gz[pos] & 0b110, 0, "a stored block");
        pos += 5 + len;
        out += len;
    }
    let mut bad = gz.clone();
    bad[pos + 3] ^= 0x5a;
    let e = read_mtx::<f64, u32, _>(gunzip(&bad)).unwrap_err();
    assert!(matches!(e, MtxError::Io(_)), "{e:?}");
    let line = e.line().expect("a line");
    assert!(reached(&text, out).contains(&line), "{line} not in {:?}", reached(&text, out));
    assert!(e.to_string().starts_with(&format!("Matrix Market I/O failed on line {line}: ")), "{e}");
    // The stream's own error stays the source, and its kind the variant's.
    let source = std::error::Error::source(&e).expect("a source");
    let MtxError::Io(ref io) = e else { unreachable!() };
    assert_eq!(io.kind(), source.downcast_ref::<io::Error>().expect("an io::Error").kind());
    assert!(!source.to_string().contains("line"), "{source}");
    // The same from a file.
    #[cfg(not(target_family = "wasm"))]
    {
        let f = TempFile(temp_path("corrupt.mtx.gz"));
        std::fs::write(&f.0, &bad).unwrap();
        let e = read_mtx_path::<f64, u32>(&f.0).unwrap_err();
        assert!(matches!(e, MtxError::Io(_)) && e.line() == Some(line), "{e:?}");
    }
    // And the good stream reads.
    assert_eq!(read_mtx::<f64, u32, _>(gunzip(&gz)).unwrap().nnz(), 10_000);
}

#[test]
fn gzip_truncated_or_with_a_bad_checksum_names_the_line_reached() {
    let (text, gz) = stored_gzip(20_000);
    // Cut inside the data of a block: everything before the cut is delivered.
    let cut = gz.len() / 2;
    let e = read_mtx::<f64, u32, _>(gunzip(&gz[..cut])).unwrap_err();
    let MtxError::Io(ref io) = e else { panic!("{e:?}") };
    assert_eq!(io.kind(), io::ErrorKind::UnexpectedEof, "{e}");
    let line = e.line().expect("a line");
    // The data before the cut: less the gzip header and the block headers.
    let good = cut - 10 - 5 * (cut / 31_750 + 1);
    assert!(reached(&text, good).contains(&line), "{line} not in {:?}", reached(&text, good));
    assert!(e.to_string().contains(&format!("on line {line}:")), "{e}");
    // A bad checksum shows at the end: one past the last line.
    let mut bad = gz.clone();
    let crc = bad.len() - 8;
    bad[crc] ^= 1;
    let e = read_mtx::<f64, u32, _>(gunzip(&bad)).unwrap_err();
    assert!(matches!(e, MtxError::Io(_)), "{e:?}");
    assert_eq!(e.line(), Some(20_003), "{e}");
}

/// Lines of text, then an error.
struct FailsAfter<'a>(&'a [u8]);
impl Read for FailsAfter<'_> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if self.0.is_empty() {
            return Err(io::Error::other("disk on fire"));
        }
        let n = self.0.read(buf)?;
        Ok(n)
    }
}

#[test]
fn a_stream_failing_mid_file_names_the_line_reached() {
    // Fails in the middle of line 4, and at the start of line 5.
    for (text, line) in
        [(format!("{BANNER}2 2 2\n1 1 1\n2 "), 4), (format!("{BANNER}2 2 2\n1 1 1\n2 2 2\n"), 5)]
    {
        let e = read_mtx::<f64, u32, _>(io::BufReader::with_capacity(4, FailsAfter(text.as_bytes())))
            .unwrap_err();
        assert!(matches!(e, MtxError::Io(ref io) if io.kind() == io::ErrorKind::Other), "{e:?}");
        assert_eq!(e.line(), Some(line));
        assert_eq!(e.to_string(), format!("Matrix Market I/O failed on line {line}: disk on fire."));
        assert_eq!(std::error::Error::source(&e).unwrap().to_string(), "disk on fire");
    }
}

// ----------------------------------------------------------------------------------------
// properties
// ----------------------------------------------------------------------------------------

/// Any finite value of `T` (uniform over its bit patterns, so subnormals, signed zeros and
/// extremes show up), or a small half-integer.
fn finite<T: Scalar>() -> BoxedStrategy<T> {
    let bits = if std::mem::size_of::<T>() == 4 {
        any::<u32>().prop_map(|b| T::from_f64(f64::from(f32::from_bits(b)))).boxed()
    } else {
        any::<u64>().prop_map(|b| T::from_f64(f64::from_bits(b))).boxed()
    };
    prop_oneof![
        4 => bits.prop_filter("finite", |v| v.is_finite()),
        1 => (-8i32..=8).prop_map(|v| T::from_f64(f64::from(v) * 0.5)),
    ]
    .boxed()
}

/// `(nrows, ncols, triplets)`, duplicates likely.
fn triplets<T: Scalar>(
    max_dim: usize,
    max_nnz: usize,
) -> impl Strategy<Value = (usize, usize, Vec<(usize, usize, T)>)> {
    (0..=max_dim, 0..=max_dim).prop_flat_map(move |(nrows, ncols)| {
        let n = if nrows == 0 || ncols == 0 { 0 } else { max_nnz };
        (
            Just(nrows),
            Just(ncols),
            proptest::collection::vec((0..nrows.max(1), 0..ncols.max(1), finite::<T>()), 0..=n),
        )
    })
}

fn check_general_round_trip<T: Scalar, I: Index>(
    (nrows, ncols, trip): (usize, usize, Vec<(usize, usize, T)>),
) -> Result<(), TestCaseError> {
    let a = CsrOwned::<T, I>::from_triplets(nrows, ncols, &trip).unwrap();
    let text = write_to_vec(&a.view(), MtxSymmetry::General).unwrap();
    let b: CsrOwned<T, I> = read_mtx(&text[..]).unwrap();
    prop_assert!(same_bits(&a, &b), "{}", String::from_utf8_lossy(&text));
    Ok(())
}

fn check_symmetric_round_trip<T: Scalar, I: Index>(
    (n, _, trip): (usize, usize, Vec<(usize, usize, T)>),
    skew: bool,
) -> Result<(), TestCaseError> {
    // Each triplet and its mirror, in the same order, so the sums match bit for bit.
    let mut full = Vec::new();
    for &(r, c, v) in &trip {
        let c = c % n.max(1);
        if r == c {
            if !skew {
                full.push((r, c, v));
            }
        } else {
            full.push((r, c, v));
            full.push((c, r, if skew { -v } else { v }));
        }
    }
    let a = CsrOwned::<T, I>::from_triplets(n, n, &full).unwrap();
    let symmetry = if skew { MtxSymmetry::SkewSymmetric } else { MtxSymmetry::Symmetric };
    let text = write_to_vec(&a.view(), symmetry).unwrap();
    let b: CsrOwned<T, I> = read_mtx(&text[..]).unwrap();
    if skew {
        // The mirror of a stored `+0.0` reads back as `-0.0`: a skew-symmetric file cannot
        // say otherwise. Everything else is exact.
        let (a, b) = (a.view(), b.view());
        prop_assert_eq!(a.row_ptr(), b.row_ptr());
        prop_assert_eq!(a.col_idx(), b.col_idx());
        for (x, y) in a.vals().iter().zip(b.vals()) {
            prop_assert!(x.to_f64().to_bits() == y.to_f64().to_bits() || (*x == T::ZERO && *y == T::ZERO));
        }
    } else {
        prop_assert!(same_bits(&a, &b), "{}", String::from_utf8_lossy(&text));
    }
    Ok(())
}

/// Small limits so that mutated headers cannot ask for much memory.
const FUZZ_LIMITS: MtxLimits = MtxLimits::new(1 << 16, 1 << 16);

/// Reads `bytes` every way there is; all that matters is that nothing panics, and that a
/// matrix that comes back is valid.
fn read_every_way(bytes: &[u8]) {
    let _ = read_mtx_header(bytes);
    if let Ok((h, a)) = read_mtx_with::<f64, u32, _>(bytes, &FUZZ_LIMITS) {
        assert_eq!((a.nrows(), a.ncols()), (h.nrows, h.ncols));
        let v = a.view();
        assert!(Csr::new(v.nrows(), v.ncols(), v.row_ptr(), v.col_idx(), v.vals()).is_ok());
    }
    let _ = read_mtx_with::<f32, u64, _>(bytes, &FUZZ_LIMITS);
    let _ = read_mtx_with::<f64, usize, _>(bytes, &FUZZ_LIMITS);
}

const SEED_FILES: [&str; 5] = [
    "%%MatrixMarket matrix coordinate real general\n% c\n3 4 4\n1 1 1.5\n3 4 -2e-3\n2 2 0\n1 1 7\n",
    "%%MatrixMarket matrix coordinate real symmetric\n3 3 3\n1 1 2\n3 1 -1\n3 3 4\n",
    "%%MatrixMarket matrix coordinate integer skew-symmetric\n3 3 2\n2 1 5\n3 2 -7\n",
    "%%MatrixMarket matrix coordinate pattern general\n2 3 3\n1 3\n2 1\n2 2\n",
    "%%MatrixMarket matrix coordinate pattern symmetric\r\n2 2 2\r\n1 1\r\n2 1\r\n",
];

/// Pieces a mutation splices in: the tokens and separators a parser cares about.
const PIECES: [&str; 22] = [
    "0",
    "1",
    "-1",
    "2",
    "3",
    "65536",
    "65537",
    "4294967295",
    "4294967296",
    "18446744073709551615",
    "18446744073709551616",
    "1e400",
    "nan",
    "-inf",
    "%",
    "%%MatrixMarket",
    " ",
    "\n",
    "\r",
    "\t",
    "symmetric",
    "skew-symmetric",
];

#[derive(Clone, Debug)]
enum Mutation {
    SetByte(usize, u8),
    Delete(usize, usize),
    Insert(usize, usize),
    Truncate(usize),
}

fn mutation() -> impl Strategy<Value = Mutation> {
    prop_oneof![
        (any::<usize>(), any::<u8>()).prop_map(|(p, b)| Mutation::SetByte(p, b)),
        (any::<usize>(), 0usize..8).prop_map(|(p, n)| Mutation::Delete(p, n)),
        (any::<usize>(), 0..PIECES.len()).prop_map(|(p, k)| Mutation::Insert(p, k)),
        any::<usize>().prop_map(Mutation::Truncate),
    ]
}

fn apply(bytes: &mut Vec<u8>, m: &Mutation) {
    let at = |p: usize, len: usize| if len == 0 { 0 } else { p % (len + 1) };
    match *m {
        Mutation::SetByte(p, b) if !bytes.is_empty() => {
            let i = p % bytes.len();
            bytes[i] = b;
        }
        Mutation::SetByte(..) => {}
        Mutation::Delete(p, n) => {
            let i = at(p, bytes.len());
            let j = (i + n).min(bytes.len());
            bytes.drain(i..j);
        }
        Mutation::Insert(p, k) => {
            let i = at(p, bytes.len());
            bytes.splice(i..i, PIECES[k].bytes());
        }
        Mutation::Truncate(p) => bytes.truncate(at(p, bytes.len())),
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn round_trip_general_f64_u32_is_exact(m in triplets::<f64>(12, 40)) {
        check_general_round_trip::<f64, u32>(m)?;
    }

    #[test]
    fn round_trip_general_f64_u64_is_exact(m in triplets::<f64>(12, 40)) {
        check_general_round_trip::<f64, u64>(m)?;
    }

    #[test]
    fn round_trip_general_f32_u32_is_exact(m in triplets::<f32>(12, 40)) {
        check_general_round_trip::<f32, u32>(m)?;
    }

    #[test]
    fn round_trip_general_f32_u64_is_exact(m in triplets::<f32>(12, 40)) {
        check_general_round_trip::<f32, u64>(m)?;
    }

    #[test]
    fn round_trip_symmetric_f64_u32_is_exact(m in triplets::<f64>(10, 30)) {
        check_symmetric_round_trip::<f64, u32>(m, false)?;
    }

    #[test]
    fn round_trip_symmetric_f32_u64_is_exact(m in triplets::<f32>(10, 30)) {
        check_symmetric_round_trip::<f32, u64>(m, false)?;
    }

    #[test]
    fn round_trip_skew_symmetric_f64_u64_is_exact(m in triplets::<f64>(10, 30)) {
        check_symmetric_round_trip::<f64, u64>(m, true)?;
    }

    #[test]
    fn round_trip_skew_symmetric_f32_u32_is_exact(m in triplets::<f32>(10, 30)) {
        check_symmetric_round_trip::<f32, u32>(m, true)?;
    }

    #[test]
    fn arbitrary_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..256)) {
        read_every_way(&bytes);
    }

    #[test]
    fn banner_then_arbitrary_bytes_never_panic(
        kind in 0..SEED_FILES.len(),
        bytes in proptest::collection::vec(any::<u8>(), 0..256),
    ) {
        let mut input = SEED_FILES[kind].lines().next().unwrap().as_bytes().to_vec();
        input.push(b'\n');
        input.extend(bytes);
        read_every_way(&input);
    }

    #[test]
    fn mutated_valid_files_never_panic(
        kind in 0..SEED_FILES.len(),
        mutations in proptest::collection::vec(mutation(), 1..6),
    ) {
        let mut bytes = SEED_FILES[kind].as_bytes().to_vec();
        for m in &mutations {
            apply(&mut bytes, m);
        }
        read_every_way(&bytes);
    }
}

#[test]
fn seed_files_are_valid() {
    for text in SEED_FILES {
        assert!(read_mtx_with::<f64, u32, _>(text.as_bytes(), &FUZZ_LIMITS).is_ok(), "{text}");
    }
}

/// `u16` indices: a file within their range reads (and writes back) as it does with
/// `u32`; one with a dimension of 65 535 or more, or more than 65 535 entries, is a
/// `Format` error, never a wrapped index.
#[test]
fn u16_reads_what_fits_and_refuses_the_rest() {
    let text = "%%MatrixMarket matrix coordinate real general\n3 65534 3\n1 1 1.5\n3 65534 -2\n2 7 0.25\n";
    let a: CsrOwned<f64, u16> = read_mtx(text.as_bytes()).unwrap();
    let b = read64(text).unwrap();
    assert_eq!(dense(&a), dense(&b));
    assert_eq!(a.view().col_idx(), &[0, 6, 65_533]);
    let back: CsrOwned<f64, u16> =
        read_mtx(write_to_vec(&a.view(), MtxSymmetry::General).unwrap().as_slice()).unwrap();
    assert!(same_bits(&a, &back));
    let wide = "%%MatrixMarket matrix coordinate real general\n3 65535 1\n1 1 1.5\n";
    assert!(matches!(
        read_mtx::<f64, u16, _>(wide.as_bytes()),
        Err(MtxError::Format(FormatError::TooLarge { .. }))
    ));
    assert!(read_mtx::<f64, u32, _>(wide.as_bytes()).is_ok());
    // 65 536 entries in a 256 x 256 matrix: every position once.
    let mut many = String::from("%%MatrixMarket matrix coordinate pattern general\n256 256 65536\n");
    for i in 1..=256 {
        for j in 1..=256 {
            many.push_str(&format!("{i} {j}\n"));
        }
    }
    let r = read_mtx::<f64, u16, _>(many.as_bytes());
    assert!(matches!(r, Err(MtxError::Format(FormatError::TooLarge { what: "nnz", .. }))), "{r:?}");
    assert_eq!(read_mtx::<f64, u32, _>(many.as_bytes()).unwrap().nnz(), 65_536);
}

#[test]
fn u16_sums_more_duplicate_lines_than_u16_counts() {
    // 70 004 entry lines, three distinct cells; the sums in file order (1e16 + 1 - 1e16 is
    // 0 that way, 1 another).
    let mut text = String::from("%%MatrixMarket matrix coordinate real general\n2 2 70004\n1 1 1e16\n");
    text.push_str(&"2 2 1\n".repeat(70_000));
    text.push_str("1 1 1\n2 1 0\n1 1 -1e16\n");
    let a: CsrOwned<f64, u16> = read_mtx(text.as_bytes()).unwrap();
    assert_eq!(a.view().row_ptr(), &[0, 1, 3]);
    assert_eq!(a.view().col_idx(), &[0, 0, 1]);
    assert_eq!(a.view().vals(), &[0.0, 0.0, 70_000.0]);
    let b = read64(&text).unwrap();
    assert_eq!(dense(&a), dense(&b));
}
