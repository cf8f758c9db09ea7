//! Target `mtx_stream`: the Matrix Market reader on large files that libFuzzer's 4 KB
//! inputs cannot hold. The input describes a file (a header, a size line, then chunks:
//! long comment or garbage lines, entry lines repeated up to a million times, blank
//! lines) that a `Read` adapter produces lazily, up to 3 MiB; the reader (limits of
//! 2^16 rows and entries, and sometimes a short line limit) returns a matrix within the
//! limits or an error, never panics, and holds no more than the limits allow (libFuzzer's
//! RSS limit stops the run otherwise).

use std::io::{BufReader, Read};

use arbitrary::{Arbitrary, Unstructured};
use spblas::io::mtx::{MtxLimits, read_mtx_with};

/// The largest file the adapter produces: room for a line past the default 1 MiB line
/// limit or for more than the 2^16 entries the limits allow, not for both many times over
/// (the reader's time grows with the bytes it scans; 16 MiB made the slowest inputs).
const MAX_BYTES: u64 = 3 << 20;

#[derive(Debug, Arbitrary)]
pub enum Chunk {
    /// A comment line of `len` bytes (modulo 2 MiB: half of them past the default limit).
    Comment { len: u32 },
    /// `repeat` (modulo 2^17: half of them past the entry limit) copies of one entry line.
    Entry { i: u16, j: u16, v: i8, repeat: u32 },
    /// Arbitrary bytes, repeated (modulo 2^16), then a newline.
    Garbage { bytes: Vec<u8>, repeat: u16 },
    /// Empty lines.
    Blank { repeat: u16 },
}

#[derive(Debug, Arbitrary)]
pub struct Input {
    /// Which header: general / symmetric / pattern / integer / array (unsupported).
    pub header: u8,
    pub nrows: u32,
    pub ncols: u32,
    pub nnz: u32,
    /// 0: the default line limit (1 MiB); else this many bytes.
    pub line_limit: u8,
    pub chunks: Vec<Chunk>,
}

const HEADERS: [&str; 5] = [
    "%%MatrixMarket matrix coordinate real general",
    "%%MatrixMarket matrix coordinate real symmetric",
    "%%MatrixMarket matrix coordinate pattern general",
    "%%MatrixMarket matrix coordinate integer skew-symmetric",
    "%%MatrixMarket matrix array real general",
];

/// The file, produced piece by piece: the current piece and how often it repeats.
struct Virtual {
    pieces: std::vec::IntoIter<(Vec<u8>, u64)>,
    current: Option<(Vec<u8>, u64, usize)>,
    produced: u64,
}

impl Read for Virtual {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        // As many copies of the current piece as fit, not one per call: a short entry
        // line repeated 100 000 times would be as many calls otherwise.
        let room = (MAX_BYTES - self.produced).min(buf.len() as u64) as usize;
        let mut n = 0;
        while n < room {
            let Some((piece, left, at)) = &mut self.current else {
                match self.pieces.next() {
                    Some((p, k)) if k > 0 && !p.is_empty() => self.current = Some((p, k, 0)),
                    Some(_) => {}
                    None if n == 0 => return Ok(0),
                    None => break,
                }
                continue;
            };
            let k = (room - n).min(piece.len() - *at);
            buf[n..n + k].copy_from_slice(&piece[*at..*at + k]);
            *at += k;
            n += k;
            if *at == piece.len() {
                *at = 0;
                *left -= 1;
                if *left == 0 {
                    self.current = None;
                }
            }
        }
        self.produced += n as u64;
        Ok(n)
    }
}

/// Runs the target; returns how far the reader got (the line of its error, at most
/// 1000), or 2000 when the file read as a matrix: the seed generator keeps inputs of
/// distinct scores.
pub fn run(data: &[u8]) -> usize {
    let Ok(input) = Input::arbitrary_take_rest(Unstructured::new(data)) else {
        return 0;
    };
    let mut pieces: Vec<(Vec<u8>, u64)> = vec![
        (format!("{}\n", HEADERS[usize::from(input.header) % HEADERS.len()]).into_bytes(), 1),
        (
            format!("{} {} {}\n", input.nrows % 70_000, input.ncols % 70_000, input.nnz % (1 << 21))
                .into_bytes(),
            1,
        ),
    ];
    for c in input.chunks.iter().take(64) {
        match c {
            Chunk::Comment { len } => {
                // One piece of 64 KiB repeated, then the newline: no 4 MiB buffer here.
                let len = u64::from(*len % (2 << 20));
                pieces.push((b"%".to_vec(), 1));
                pieces.push((vec![b'x'; 1 << 16], len >> 16));
                pieces.push((vec![b'y'; (len & 0xffff) as usize], 1));
                pieces.push((b"\n".to_vec(), 1));
            }
            Chunk::Entry { i, j, v, repeat } => {
                pieces.push((
                    format!("{} {} {v}\n", i % 300 + 1, j % 300 + 1).into_bytes(),
                    u64::from(repeat % (1 << 17)),
                ));
            }
            Chunk::Garbage { bytes, repeat } => {
                pieces.push((bytes.clone(), u64::from(*repeat)));
                pieces.push((b"\n".to_vec(), 1));
            }
            Chunk::Blank { repeat } => pieces.push((b"\n".to_vec(), u64::from(*repeat))),
        }
    }
    let file = Virtual { pieces: pieces.into_iter(), current: None, produced: 0 };
    let mut limits = MtxLimits::new(1 << 16, 1 << 16);
    if input.line_limit > 0 {
        limits = limits.with_max_line_len(usize::from(input.line_limit));
    }
    match read_mtx_with::<f64, u32, _>(BufReader::new(file), &limits) {
        Ok((_, m)) => {
            let v = m.view();
            assert!(v.nrows() <= 1 << 16 && v.nnz() <= 1 << 16, "a matrix beyond the limits");
            2000
        }
        Err(e) => e.line().map_or(0, |l| l.min(1000)),
    }
}
