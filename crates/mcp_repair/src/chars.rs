//! Byte/char classification helpers. All functions take a byte slice and an index and return
//! `false`/`None` past the end, so callers never index out of bounds.

/// Decode the char starting at byte `i` (which must be a char boundary of valid UTF-8).
#[inline]
pub fn char_at(b: &[u8], i: usize) -> Option<(char, usize)> {
    let c0 = *b.get(i)?;
    if c0 < 0x80 {
        return Some((c0 as char, 1));
    }
    let len = if c0 >= 0xF0 {
        4
    } else if c0 >= 0xE0 {
        3
    } else {
        2
    };
    let s = std::str::from_utf8(b.get(i..i + len)?).ok()?;
    s.chars().next().map(|c| (c, len))
}

#[inline]
pub fn at(b: &[u8], i: usize) -> u8 {
    // 0 is never a meaningful structural byte, so it doubles as "end of input".
    b.get(i).copied().unwrap_or(0)
}

#[inline]
pub fn is_ws(c: u8) -> bool {
    matches!(c, b' ' | b'\n' | b'\t' | b'\r')
}

#[inline]
pub fn is_ws_no_nl(c: u8) -> bool {
    matches!(c, b' ' | b'\t' | b'\r')
}

/// Unicode whitespace that LLMs and copy/paste leave in JSON: NBSP, en/em spaces, zero-width
/// space, narrow NBSP, ideographic space, BOM. Returns its byte length.
#[inline]
pub fn special_ws_len(b: &[u8], i: usize) -> usize {
    if at(b, i) < 0x80 {
        return 0;
    }
    match char_at(b, i) {
        Some((c, l))
            if c == '\u{a0}'
                || c == '\u{180e}'
                || ('\u{2000}'..='\u{200b}').contains(&c)
                || c == '\u{202f}'
                || c == '\u{205f}'
                || c == '\u{3000}'
                || c == '\u{feff}' =>
        {
            l
        }
        _ => 0,
    }
}

#[inline]
pub fn is_digit(c: u8) -> bool {
    c.is_ascii_digit()
}

/// Structural delimiters that end an unquoted token or confirm an end quote.
#[inline]
pub fn is_delimiter(c: u8) -> bool {
    matches!(
        c,
        b',' | b':' | b'[' | b']' | b'/' | b'{' | b'}' | b'(' | b')' | b'\n' | b'+'
    )
}

#[inline]
pub fn is_unquoted_delimiter(c: u8) -> bool {
    matches!(c, b',' | b'[' | b']' | b'/' | b'{' | b'}' | b'\n' | b'+')
}

#[inline]
pub fn is_ident_start(c: u8) -> bool {
    c.is_ascii_alphabetic() || c == b'_' || c == b'$'
}

#[inline]
pub fn is_ident(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'_' || c == b'$'
}

/// Kind of quote that opened a string; decides which chars may close it.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Quote {
    /// `"` closes only with `"`.
    Double,
    /// `'` closes only with `'`.
    Single,
    /// `‘ ’ \` ´` close with any single-like quote.
    SingleLike,
    /// `“ ”` close with any double-like quote.
    DoubleLike,
}

#[inline]
pub fn is_double_like(c: char) -> bool {
    matches!(c, '"' | '\u{201c}' | '\u{201d}')
}

#[inline]
pub fn is_single_like(c: char) -> bool {
    matches!(c, '\'' | '\u{2018}' | '\u{2019}' | '`' | '\u{b4}')
}

/// If a quote char starts at `i`, its kind and byte length.
#[inline]
pub fn quote_at(b: &[u8], i: usize) -> Option<(Quote, usize)> {
    match at(b, i) {
        b'"' => Some((Quote::Double, 1)),
        b'\'' => Some((Quote::Single, 1)),
        b'`' => Some((Quote::SingleLike, 1)),
        c if c >= 0x80 => {
            let (ch, l) = char_at(b, i)?;
            if is_double_like(ch) {
                Some((Quote::DoubleLike, l))
            } else if is_single_like(ch) {
                Some((Quote::SingleLike, l))
            } else {
                None
            }
        }
        _ => None,
    }
}

/// Does the char at `i` close a string opened with `q`? Returns its byte length.
#[inline]
pub fn end_quote_len(b: &[u8], i: usize, q: Quote) -> usize {
    match q {
        Quote::Double => usize::from(at(b, i) == b'"'),
        Quote::Single => usize::from(at(b, i) == b'\''),
        Quote::SingleLike => match quote_at(b, i) {
            Some((_, l)) if char_at(b, i).is_some_and(|(c, _)| is_single_like(c)) => l,
            _ => 0,
        },
        Quote::DoubleLike => match quote_at(b, i) {
            Some((_, l)) if char_at(b, i).is_some_and(|(c, _)| is_double_like(c)) => l,
            _ => 0,
        },
    }
}

#[inline]
pub fn is_quote(b: &[u8], i: usize) -> bool {
    quote_at(b, i).is_some()
}

pub fn is_start_of_value(b: &[u8], i: usize) -> bool {
    let c = at(b, i);
    is_quote(b, i) || c == b'[' || c == b'{' || c == b'-' || c.is_ascii_alphanumeric() || c == b'_'
}

/// The character a JSON single-character escape `\e` stands for, quotes excluded (which quote
/// may be escaped depends on the string's delimiter): `\t \n \r \b \f \/ \\`.
pub fn simple_escape(e: u8) -> Option<char> {
    match e {
        b't' => Some('\t'),
        b'n' => Some('\n'),
        b'r' => Some('\r'),
        b'b' => Some('\u{8}'),
        b'f' => Some('\u{c}'),
        b'/' => Some('/'),
        b'\\' => Some('\\'),
        _ => None,
    }
}
