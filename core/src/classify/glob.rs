//! Shell globs (`name: "tool:*"`, `{glob: "?*"}`) as Python's `fnmatch.translate` reads them,
//! compiled to one `regex` for all the globs of a test, matched against the whole text.
//!
//! Python builds a `re` pattern with atomic groups (`(?>.*?fixed)`) the `regex` crate lacks;
//! every piece between two stars matches a fixed number of characters, so committing to its
//! first occurrence accepts exactly the texts `.*` does: the answers are the same.

use regex::Regex;

/// One element of a `[...]` set: a character, or an inclusive range of them.
enum Member {
    Char(char),
    Range(char, char),
}

/// `[...]` after fnmatch's clean-up: what Python's `re` is handed, as members.
enum Set {
    /// an empty set: matches nothing (`[z-a]`)
    Never,
    /// `[!]`: any one character
    Any,
    Of {
        negated: bool,
        members: Vec<Member>,
    },
}

/// A regex escape of one character, safe inside and outside a class.
fn literal(c: char) -> String {
    format!("\\x{{{:x}}}", c as u32)
}

/// The set spelled by `pat[start..end]` (between the brackets), as fnmatch.translate
/// cleans it: hyphens between chunks are ranges, empty ranges dropped, `!` first negates.
fn parse_set(pat: &[char], start: usize, end: usize) -> Set {
    let stuff = &pat[start..end];
    let mut chunks: Vec<Vec<char>> = Vec::new();
    if !stuff.contains(&'-') {
        chunks.push(stuff.to_vec());
    } else {
        let mut i = start;
        let mut k = if pat[start] == '!' {
            start + 2
        } else {
            start + 1
        };
        loop {
            let found = (k..end).find(|&at| pat[at] == '-');
            let Some(at) = found else { break };
            chunks.push(pat[i..at].to_vec());
            i = at + 1;
            k = at + 3;
        }
        let chunk = pat[i.min(end)..end].to_vec();
        if chunk.is_empty() {
            if let Some(last) = chunks.last_mut() {
                last.push('-');
            }
        } else {
            chunks.push(chunk);
        }
        // Remove empty ranges (their ends cross), from the last one back, as Python does.
        let mut k = chunks.len();
        while k > 1 {
            k -= 1;
            let crossed = match (chunks[k - 1].last(), chunks[k].first()) {
                (Some(lo), Some(hi)) => lo > hi,
                _ => false,
            };
            if crossed {
                let mut merged = chunks[k - 1].clone();
                merged.pop();
                merged.extend_from_slice(&chunks[k][1..]);
                chunks[k - 1] = merged;
                chunks.remove(k);
            }
        }
    }
    let total: usize = chunks.iter().map(Vec::len).sum::<usize>() + chunks.len().saturating_sub(1);
    if total == 0 {
        return Set::Never;
    }
    let negated = chunks.first().and_then(|c| c.first()) == Some(&'!');
    if negated && total == 1 {
        return Set::Any;
    }
    let mut members = Vec::new();
    let last = chunks.len() - 1;
    for (n, chunk) in chunks.iter().enumerate() {
        let skip = usize::from(n == 0 && negated);
        let chars = chunk.get(skip..).unwrap_or(&[]);
        for (i, &c) in chars.iter().enumerate() {
            let range_end = n > 0 && i == 0 && skip == 0;
            let range_start = n < last && i + 1 == chars.len();
            if range_end {
                continue; // written with the range it closes
            }
            if range_start {
                let hi = chunks[n + 1].first().copied().unwrap_or(c);
                members.push(Member::Range(c, hi));
            } else {
                members.push(Member::Char(c));
            }
        }
    }
    Set::Of { negated, members }
}

/// One glob as a regex body (no anchors), or None when it can match nothing.
fn translate(glob: &str) -> Option<String> {
    let pat: Vec<char> = glob.chars().collect();
    let n = pat.len();
    let mut out = String::new();
    let mut i = 0;
    let mut star = false;
    while i < n {
        let c = pat[i];
        i += 1;
        if c == '*' {
            if !star {
                out.push_str(".*");
            }
            star = true;
            continue;
        }
        star = false;
        if c == '?' {
            out.push('.');
        } else if c == '[' {
            let mut j = i;
            if j < n && pat[j] == '!' {
                j += 1;
            }
            if j < n && pat[j] == ']' {
                j += 1;
            }
            while j < n && pat[j] != ']' {
                j += 1;
            }
            if j >= n {
                out.push_str(&literal('['));
                continue;
            }
            match parse_set(&pat, i, j) {
                Set::Never => return None,
                Set::Any => out.push('.'),
                Set::Of { negated, members } => {
                    out.push('[');
                    if negated {
                        out.push('^');
                    }
                    for member in members {
                        match member {
                            Member::Char(c) => out.push_str(&literal(c)),
                            Member::Range(lo, hi) => {
                                out.push_str(&literal(lo));
                                out.push('-');
                                out.push_str(&literal(hi));
                            }
                        }
                    }
                    out.push(']');
                }
            }
            i = j + 1;
        } else {
            out.push_str(&literal(c));
        }
    }
    Some(out)
}

/// Any of `globs` matching a whole text (Python: `re.compile("|".join(map(translate, globs)))`
/// used with `.match`); `*` and `?` match newlines too.
pub fn compile(globs: &[String]) -> Result<Regex, regex::Error> {
    let bodies: Vec<String> = globs.iter().filter_map(|g| translate(g)).collect();
    if bodies.is_empty() {
        return Regex::new("[^\\x{0}-\\x{10FFFF}]"); // every glob is an empty set
    }
    let joined = bodies
        .iter()
        .map(|b| format!("(?:{b})"))
        .collect::<Vec<_>>()
        .join("|");
    Regex::new(&format!("(?s)\\A(?:{joined})\\z"))
}

#[cfg(test)]
mod tests {
    use super::compile;

    fn matches(glob: &str, text: &str) -> bool {
        compile(&[glob.to_owned()])
            .map(|r| r.is_match(text))
            .unwrap_or(false)
    }

    #[test]
    fn reads_globs_as_fnmatch() {
        assert!(matches("tool:*", "tool:x\ny"));
        assert!(!matches("tool:*", "atool:x"));
        assert!(matches("?*", "a"));
        assert!(!matches("?*", ""));
        assert!(matches("[a-c]x", "bx"));
        assert!(!matches("[!a-c]x", "bx"));
        assert!(matches("[!]", "[!]"));
        assert!(matches("[!]]", "q"));
        assert!(matches("[!b-a]", "q"));
        assert!(matches("[b-a-c]", "-"));
        assert!(!matches("[!a-]x", "-x"));
        assert!(!matches("[z-a]", "z"));
        assert!(matches("[z-a", "[z-a"));
        assert!(matches("[]]", "]"));
        assert!(matches("a[-]b", "a-b"));
        assert!(matches("*a*b*", "xxaxxbxx"));
        assert!(matches("[.]", "."));
    }
}
