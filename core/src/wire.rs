//! The protobuf wire format, read the way upb (the `protobuf` package's parser) reads it.
//!
//! Only what the OTLP decoder needs: varints, tags, fixed-width values, length-delimited
//! fields and skipping unknown fields (groups included). Every read is bounds-checked and
//! returns an [`Error`] naming the byte: hostile bytes never panic. The limits are upb's, so a
//! payload the Python oracle rejects is rejected here too: varints of at most 10 bytes, tags of
//! at most 5 bytes and 32 bits, field number 0 refused, messages nested at most
//! [`MAX_DEPTH`] deep.

/// upb's default nesting limit (`kUpb_WireFormat_DefaultDepthLimit`), counted as it counts:
/// every sub-message and group below the top message takes one level.
pub const MAX_DEPTH: u32 = 100;

pub const VARINT: u8 = 0;
pub const I64: u8 = 1;
pub const LEN: u8 = 2;
pub const SGROUP: u8 = 3;
pub const EGROUP: u8 = 4;
pub const I32: u8 = 5;

/// Why a payload is not a protobuf message of the expected type, and where.
#[derive(Debug, Clone, PartialEq)]
pub struct Error {
    /// absolute byte offset in the payload
    pub at: usize,
    pub what: &'static str,
    /// the OTLP/JSON path of the innermost element, filled in on the way out (`within`)
    pub place: String,
}

impl Error {
    pub fn new(at: usize, what: &'static str) -> Self {
        Error {
            at,
            what,
            place: String::new(),
        }
    }

    /// Prefix the place with the enclosing element (`spans[3]`), as the error leaves it:
    /// paths are only ever built for the one error, never for the payload that decodes.
    pub fn within(mut self, segment: impl std::fmt::Display) -> Self {
        self.place = if self.place.is_empty() {
            segment.to_string()
        } else if self.place.starts_with('[') {
            format!("{segment}{}", self.place)
        } else {
            format!("{segment}.{}", self.place)
        };
        self
    }
}

impl std::fmt::Display for Error {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} at byte {}", self.what, self.at)?;
        if !self.place.is_empty() {
            write!(f, " in {}", self.place)?;
        }
        Ok(())
    }
}

pub type Result<T> = std::result::Result<T, Error>;

/// One message's bytes and a read position; `base` is where they start in the payload.
pub struct Cursor<'a> {
    data: &'a [u8],
    pos: usize,
    base: usize,
}

impl<'a> Cursor<'a> {
    pub fn new(data: &'a [u8], base: usize) -> Self {
        Cursor { data, pos: 0, base }
    }

    /// The absolute offset of the next byte.
    pub fn at(&self) -> usize {
        self.base + self.pos
    }

    pub fn is_done(&self) -> bool {
        self.pos >= self.data.len()
    }

    fn byte(&mut self, what: &'static str) -> Result<u8> {
        let b = *self
            .data
            .get(self.pos)
            .ok_or_else(|| Error::new(self.at(), what))?;
        self.pos += 1;
        Ok(b)
    }

    /// A varint of up to 10 bytes; bits past 64 are dropped, as upb drops them.
    pub fn varint(&mut self) -> Result<u64> {
        let start = self.at();
        let mut value = 0u64;
        for i in 0..10 {
            let b = self.byte("truncated varint")?;
            value |= u64::from(b & 0x7F) << (7 * i);
            if b < 0x80 {
                return Ok(value);
            }
        }
        Err(Error::new(start, "varint longer than 10 bytes"))
    }

    /// (field number, wire type) of the next field.
    pub fn tag(&mut self) -> Result<(u32, u8)> {
        let start = self.pos;
        let tag = self.varint()?;
        if self.pos - start > 5 || tag > u64::from(u32::MAX) {
            return Err(Error::new(self.base + start, "malformed field tag"));
        }
        let field = (tag >> 3) as u32;
        if field == 0 {
            return Err(Error::new(self.base + start, "field number 0"));
        }
        Ok((field, (tag & 7) as u8))
    }

    fn take(&mut self, n: usize, what: &'static str) -> Result<&'a [u8]> {
        let bytes = self
            .pos
            .checked_add(n)
            .and_then(|end| self.data.get(self.pos..end))
            .ok_or_else(|| Error::new(self.at(), what))?;
        self.pos += n;
        Ok(bytes)
    }

    /// A length-delimited field's bytes and the cursor over them (for a sub-message).
    pub fn len_delimited(&mut self) -> Result<Cursor<'a>> {
        let start = self.at();
        let n = self.varint()?;
        // upb refuses sizes of 2^31 - 1 and more before it compares them with what is left
        let n = usize::try_from(n)
            .ok()
            .filter(|&n| n < i32::MAX as usize)
            .ok_or_else(|| Error::new(start, "length out of range"))?;
        let at = self.at();
        let data = self
            .take(n, "")
            .map_err(|_| Error::new(start, "length-delimited field runs past its message"))?;
        Ok(Cursor::new(data, at))
    }

    /// The rest of this cursor's bytes (the content of a length-delimited field).
    pub fn rest(&self) -> &'a [u8] {
        self.data.get(self.pos..).unwrap_or_default()
    }

    /// A proto3 `string`: upb refuses one that is not UTF-8.
    pub fn string(&mut self) -> Result<&'a str> {
        let field = self.len_delimited()?;
        std::str::from_utf8(field.rest()).map_err(|_| Error::new(field.at(), "invalid UTF-8"))
    }

    pub fn bytes(&mut self) -> Result<&'a [u8]> {
        Ok(self.len_delimited()?.rest())
    }

    pub fn fixed64(&mut self) -> Result<u64> {
        let b = self.take(8, "truncated fixed64")?;
        let mut raw = [0u8; 8];
        raw.copy_from_slice(b);
        Ok(u64::from_le_bytes(raw))
    }

    pub fn fixed32(&mut self) -> Result<u32> {
        let b = self.take(4, "truncated fixed32")?;
        let mut raw = [0u8; 4];
        raw.copy_from_slice(b);
        Ok(u32::from_le_bytes(raw))
    }

    /// Skip a field the schema does not name (or names with another wire type), as protobuf
    /// keeps unknown fields for forward compatibility. A group is walked to its matching end,
    /// each nested group taking a level of `depth`; a stray end-group tag is an error.
    pub fn skip(&mut self, field: u32, wire: u8, depth: u32) -> Result<()> {
        match wire {
            VARINT => self.varint().map(drop),
            I64 => self.take(8, "truncated fixed64").map(drop),
            I32 => self.take(4, "truncated fixed32").map(drop),
            LEN => self.len_delimited().map(drop),
            SGROUP => {
                let depth = nested(depth, self.at())?;
                loop {
                    if self.is_done() {
                        return Err(Error::new(self.at(), "unterminated group"));
                    }
                    let at = self.at();
                    let (inner, inner_wire) = self.tag()?;
                    if inner_wire == EGROUP {
                        if inner != field {
                            return Err(Error::new(at, "mismatched end of group"));
                        }
                        return Ok(());
                    }
                    self.skip(inner, inner_wire, depth)?;
                }
            }
            EGROUP => Err(Error::new(self.at(), "end of group outside a group")),
            _ => Err(Error::new(self.at(), "invalid wire type")),
        }
    }
}

/// One level deeper, or the nesting-limit error at `at`.
pub fn nested(depth: u32, at: usize) -> Result<u32> {
    if depth >= MAX_DEPTH {
        return Err(Error::new(at, "nested too deeply"));
    }
    Ok(depth + 1)
}
