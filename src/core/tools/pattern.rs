//! A small ECMA-262 regular expression subset for the JSON Schema `pattern` keyword.
//!
//! The `regex` crate would cost more of the wasm size budget than the rest of the tool layer, and
//! tool schemas use few constructs. Supported: literals, `.`, anchors `^` `$`, word boundaries
//! `\b` `\B`, classes (`[a-z_]`, `[^...]`, `\d \D \w \W \s \S`), escapes (`\n \t \r \f \v \0 \xHH
//! \uHHHH \u{H..}`), groups (`(...)`, `(?:...)`, `(?<name>...)`), alternation and the quantifiers
//! `* + ? {n} {n,} {n,m}` (greedy or lazy: for a yes/no match both give the same answer).
//! Back-references, lookarounds, `\p{..}` and `\cX` are refused with [`Unsupported`]: the caller
//! then leaves the pattern unchecked rather than guessing. Matching is a backtracking search that
//! spends steps from a budget the caller owns, so a pathological pattern gives up ("not checked")
//! instead of hanging the page, however many strings one call checks.

use crate::core::text::parse_unsigned;
use std::cell::Cell;

/// A construct outside the supported subset, or a syntax error; the pattern is then not checked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unsupported(pub &'static str);

#[derive(Debug, Clone)]
enum Node {
    Char(char),
    AnyButNewline,
    Class(CharClass),
    LineStart,
    LineEnd,
    WordBoundary {
        negated: bool,
    },
    Concat(Vec<Node>),
    Alternation(Vec<Node>),
    Repeat {
        node: Box<Node>,
        min: u32,
        max: Option<u32>,
    },
}

#[derive(Debug, Clone, Default)]
struct CharClass {
    negated: bool,
    ranges: Vec<(char, char)>,
    shorthands: Vec<Shorthand>,
}

#[derive(Debug, Clone, Copy)]
enum Shorthand {
    Digit(bool),
    Word(bool),
    Space(bool),
}

impl Shorthand {
    fn matches(self, c: char) -> bool {
        match self {
            Shorthand::Digit(negated) => c.is_ascii_digit() != negated,
            Shorthand::Word(negated) => is_word_char(c) != negated,
            Shorthand::Space(negated) => is_ecma_space(c) != negated,
        }
    }
}

impl CharClass {
    fn matches(&self, c: char) -> bool {
        let inside = self.ranges.iter().any(|&(low, high)| low <= c && c <= high)
            || self.shorthands.iter().any(|shorthand| shorthand.matches(c));
        inside != self.negated
    }
}

fn is_word_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_'
}

fn is_ecma_space(c: char) -> bool {
    c.is_whitespace() || c == '\u{feff}'
}

fn is_line_terminator(c: char) -> bool {
    matches!(c, '\n' | '\r' | '\u{2028}' | '\u{2029}')
}

/// Upper bound on repetition counts, so `a{999999999}` cannot be used to stall the matcher.
const MAX_REPEAT_COUNT: u32 = 1000;
/// Nesting of the backtracking matcher, which recurses once per consumed character or so: a
/// longer match is left unchecked. Each level is a few wasm frames on the engine's stack and some
/// of Rust's 1 MiB shadow stack; 4 000 levels did not fit a 1 MiB native test thread.
const MAX_MATCH_DEPTH: u32 = 1_000;
/// Groups inside groups: the parser, the matcher and dropping the tree all recurse once per
/// level, and a wasm stack is 1 MiB, so a pattern of thousands of `(` is refused up front.
const MAX_GROUP_NESTING: u32 = 64;

/// A compiled pattern.
#[derive(Debug, Clone)]
pub struct Pattern {
    root: Node,
}

impl Pattern {
    pub fn parse(source: &str) -> Result<Pattern, Unsupported> {
        let mut parser = Parser {
            chars: source.chars().collect(),
            position: 0,
            group_nesting: 0,
        };
        let root = parser.parse_alternation()?;
        if parser.position < parser.chars.len() {
            return Err(Unsupported("unbalanced `)`"));
        }
        Ok(Pattern { root })
    }

    /// Whether the pattern matches anywhere in `text` (JSON Schema patterns are not anchored).
    /// Each matching step is taken from `steps_left`, which the caller shares between every
    /// string it checks; `None` when it runs out: the answer is unknown.
    pub fn is_match(&self, text: &str, steps_left: &Cell<u32>) -> Option<bool> {
        let matcher = Matcher {
            text: text.chars().collect(),
            steps_left,
            depth: Cell::new(0),
            gave_up: Cell::new(false),
        };
        for start in 0..=matcher.text.len() {
            if matcher.match_node(&self.root, start, &mut |_| true) {
                return Some(true);
            }
            if matcher.gave_up.get() {
                return None;
            }
        }
        Some(false)
    }
}

struct Parser {
    chars: Vec<char>,
    position: usize,
    group_nesting: u32,
}

impl Parser {
    fn peek(&self) -> Option<char> {
        self.chars.get(self.position).copied()
    }

    fn peek_at(&self, offset: usize) -> Option<char> {
        self.chars.get(self.position + offset).copied()
    }

    fn next(&mut self) -> Option<char> {
        let c = self.peek()?;
        self.position += 1;
        Some(c)
    }

    fn eat(&mut self, expected: char) -> bool {
        if self.peek() == Some(expected) {
            self.position += 1;
            true
        } else {
            false
        }
    }

    fn parse_alternation(&mut self) -> Result<Node, Unsupported> {
        let mut branches = vec![self.parse_concat()?];
        while self.eat('|') {
            branches.push(self.parse_concat()?);
        }
        Ok(if branches.len() == 1 {
            branches.remove(0)
        } else {
            Node::Alternation(branches)
        })
    }

    fn parse_concat(&mut self) -> Result<Node, Unsupported> {
        let mut items = Vec::new();
        while let Some(c) = self.peek() {
            if c == '|' || c == ')' {
                break;
            }
            let atom = self.parse_atom()?;
            items.push(self.parse_quantifier(atom)?);
        }
        Ok(Node::Concat(items))
    }

    fn parse_atom(&mut self) -> Result<Node, Unsupported> {
        let c = self
            .next()
            .ok_or(Unsupported("unexpected end of pattern"))?;
        match c {
            '^' => Ok(Node::LineStart),
            '$' => Ok(Node::LineEnd),
            '.' => Ok(Node::AnyButNewline),
            '(' => self.parse_group(),
            '[' => self.parse_class().map(Node::Class),
            '\\' => self.parse_escape_atom(),
            '*' | '+' | '?' => Err(Unsupported("quantifier without a target")),
            '{' if self.quantifier_braces_ahead(self.position - 1).is_some() => {
                Err(Unsupported("quantifier without a target"))
            }
            other => Ok(Node::Char(other)),
        }
    }

    fn parse_group(&mut self) -> Result<Node, Unsupported> {
        if self.eat('?') {
            match self.next() {
                Some(':') => {}
                Some('<') if !matches!(self.peek(), Some('=') | Some('!')) => {
                    while let Some(c) = self.next() {
                        if c == '>' {
                            break;
                        }
                        if !(is_word_char(c) || c == '$') {
                            return Err(Unsupported("invalid group name"));
                        }
                    }
                }
                _ => return Err(Unsupported("lookaround or inline flags")),
            }
        }
        if self.group_nesting == MAX_GROUP_NESTING {
            return Err(Unsupported("groups nested too deeply"));
        }
        self.group_nesting += 1;
        let inner = self.parse_alternation()?;
        self.group_nesting -= 1;
        if !self.eat(')') {
            return Err(Unsupported("unclosed group"));
        }
        Ok(inner)
    }

    /// The `{n}`, `{n,}` or `{n,m}` starting at `start`, with the index just after it.
    fn quantifier_braces_ahead(&self, start: usize) -> Option<(u32, Option<u32>, usize)> {
        let mut index = start;
        if self.chars.get(index) != Some(&'{') {
            return None;
        }
        index += 1;
        let read_number = |index: &mut usize| -> Option<u32> {
            let begin = *index;
            while self.chars.get(*index).is_some_and(|c| c.is_ascii_digit()) {
                *index += 1;
            }
            if begin == *index {
                return None;
            }
            let digits: String = self.chars[begin..*index].iter().collect();
            Some(parse_unsigned(&digits, 10).unwrap_or(u32::MAX))
        };
        let min = read_number(&mut index)?;
        let max = if self.chars.get(index) == Some(&',') {
            index += 1;
            if self.chars.get(index) == Some(&'}') {
                None
            } else {
                Some(read_number(&mut index)?)
            }
        } else {
            Some(min)
        };
        if self.chars.get(index) != Some(&'}') {
            return None;
        }
        Some((min, max, index + 1))
    }

    fn parse_quantifier(&mut self, atom: Node) -> Result<Node, Unsupported> {
        let (min, max) = match self.peek() {
            Some('*') => {
                self.position += 1;
                (0, None)
            }
            Some('+') => {
                self.position += 1;
                (1, None)
            }
            Some('?') => {
                self.position += 1;
                (0, Some(1))
            }
            Some('{') => match self.quantifier_braces_ahead(self.position) {
                Some((min, max, after)) => {
                    self.position = after;
                    (min, max)
                }
                None => return Ok(atom),
            },
            _ => return Ok(atom),
        };
        if matches!(
            atom,
            Node::LineStart | Node::LineEnd | Node::WordBoundary { .. }
        ) {
            return Err(Unsupported("quantified assertion"));
        }
        if max.is_some_and(|max| max < min) {
            return Err(Unsupported("quantifier range out of order"));
        }
        if min > MAX_REPEAT_COUNT || max.is_some_and(|max| max > MAX_REPEAT_COUNT) {
            return Err(Unsupported("repetition count too large"));
        }
        self.eat('?');
        if matches!(self.peek(), Some('*') | Some('+') | Some('?')) {
            return Err(Unsupported("nothing to repeat"));
        }
        Ok(Node::Repeat {
            node: Box::new(atom),
            min,
            max,
        })
    }

    fn parse_escape_atom(&mut self) -> Result<Node, Unsupported> {
        match self.peek() {
            Some('b') => {
                self.position += 1;
                Ok(Node::WordBoundary { negated: false })
            }
            Some('B') => {
                self.position += 1;
                Ok(Node::WordBoundary { negated: true })
            }
            _ => match self.parse_escape()? {
                Escaped::Char(c) => Ok(Node::Char(c)),
                Escaped::Shorthand(shorthand) => Ok(Node::Class(CharClass {
                    shorthands: vec![shorthand],
                    ..CharClass::default()
                })),
            },
        }
    }

    /// An escape after `\`, valid both inside and outside classes.
    fn parse_escape(&mut self) -> Result<Escaped, Unsupported> {
        let c = self.next().ok_or(Unsupported("pattern ends with `\\`"))?;
        Ok(match c {
            'd' => Escaped::Shorthand(Shorthand::Digit(false)),
            'D' => Escaped::Shorthand(Shorthand::Digit(true)),
            'w' => Escaped::Shorthand(Shorthand::Word(false)),
            'W' => Escaped::Shorthand(Shorthand::Word(true)),
            's' => Escaped::Shorthand(Shorthand::Space(false)),
            'S' => Escaped::Shorthand(Shorthand::Space(true)),
            'n' => Escaped::Char('\n'),
            'r' => Escaped::Char('\r'),
            't' => Escaped::Char('\t'),
            'f' => Escaped::Char('\u{c}'),
            'v' => Escaped::Char('\u{b}'),
            '0' if !self.peek().is_some_and(|c| c.is_ascii_digit()) => Escaped::Char('\0'),
            'x' => Escaped::Char(self.parse_hex_digits(2)?),
            'u' if self.peek() == Some('{') => {
                self.position += 1;
                let begin = self.position;
                while self.peek().is_some_and(|c| c.is_ascii_hexdigit()) {
                    self.position += 1;
                }
                let digits: String = self.chars[begin..self.position].iter().collect();
                if !self.eat('}') {
                    return Err(Unsupported("invalid `\\u{...}` escape"));
                }
                parse_unsigned(&digits, 16)
                    .and_then(char::from_u32)
                    .map(Escaped::Char)
                    .ok_or(Unsupported("invalid `\\u{...}` escape"))?
            }
            'u' => Escaped::Char(self.parse_hex_digits(4)?),
            '1'..='9' => return Err(Unsupported("back-reference")),
            'k' => return Err(Unsupported("named back-reference")),
            'p' | 'P' => return Err(Unsupported("unicode property escape")),
            'c' => return Err(Unsupported("control escape")),
            other => Escaped::Char(other),
        })
    }

    fn parse_hex_digits(&mut self, count: usize) -> Result<char, Unsupported> {
        let end = self.position + count;
        let digits: String = self
            .chars
            .get(self.position..end)
            .ok_or(Unsupported("truncated hex escape"))?
            .iter()
            .collect();
        let code = parse_unsigned(&digits, 16).ok_or(Unsupported("bad hex escape"))?;
        self.position = end;
        char::from_u32(code).ok_or(Unsupported("escape is not a character (surrogate)"))
    }

    fn parse_class(&mut self) -> Result<CharClass, Unsupported> {
        let mut class = CharClass {
            negated: self.eat('^'),
            ..CharClass::default()
        };
        loop {
            let start = match self.next() {
                None => return Err(Unsupported("unclosed character class")),
                Some(']') => return Ok(class),
                Some('\\') => self.parse_escape_in_class()?,
                Some(c) => Escaped::Char(c),
            };
            let Escaped::Char(low) = start else {
                if let Escaped::Shorthand(shorthand) = start {
                    class.shorthands.push(shorthand);
                }
                continue;
            };
            if self.peek() == Some('-') && !matches!(self.peek_at(1), Some(']') | None) {
                self.position += 1;
                let high = match self.next() {
                    Some('\\') => self.parse_escape_in_class()?,
                    Some(c) => Escaped::Char(c),
                    None => return Err(Unsupported("unclosed character class")),
                };
                match high {
                    Escaped::Char(high) if low <= high => class.ranges.push((low, high)),
                    Escaped::Char(_) => return Err(Unsupported("class range out of order")),
                    Escaped::Shorthand(_) => return Err(Unsupported("class range with `\\d`")),
                }
            } else {
                class.ranges.push((low, low));
            }
        }
    }

    fn parse_escape_in_class(&mut self) -> Result<Escaped, Unsupported> {
        if self.eat('b') {
            return Ok(Escaped::Char('\u{8}'));
        }
        if self.eat('-') {
            return Ok(Escaped::Char('-'));
        }
        self.parse_escape()
    }
}

enum Escaped {
    Char(char),
    Shorthand(Shorthand),
}

struct Matcher<'b> {
    text: Vec<char>,
    steps_left: &'b Cell<u32>,
    depth: Cell<u32>,
    gave_up: Cell<bool>,
}

impl Matcher<'_> {
    /// Matches `node` at `position`, then asks the continuation about the rest.
    fn match_node(
        &self,
        node: &Node,
        position: usize,
        continuation: &mut dyn FnMut(usize) -> bool,
    ) -> bool {
        if self.gave_up.get() {
            return false;
        }
        let steps_left = self.steps_left.get();
        if steps_left == 0 || self.depth.get() > MAX_MATCH_DEPTH {
            self.gave_up.set(true);
            return false;
        }
        self.steps_left.set(steps_left - 1);
        self.depth.set(self.depth.get() + 1);
        let matched = self.match_node_inner(node, position, continuation);
        self.depth.set(self.depth.get() - 1);
        matched
    }

    fn match_node_inner(
        &self,
        node: &Node,
        position: usize,
        continuation: &mut dyn FnMut(usize) -> bool,
    ) -> bool {
        let current = self.text.get(position).copied();
        match node {
            Node::Char(expected) => current == Some(*expected) && continuation(position + 1),
            Node::AnyButNewline => {
                current.is_some_and(|c| !is_line_terminator(c)) && continuation(position + 1)
            }
            Node::Class(class) => {
                current.is_some_and(|c| class.matches(c)) && continuation(position + 1)
            }
            Node::LineStart => position == 0 && continuation(position),
            Node::LineEnd => position == self.text.len() && continuation(position),
            Node::WordBoundary { negated } => {
                let before = position > 0 && is_word_char(self.text[position - 1]);
                let after = current.is_some_and(is_word_char);
                ((before != after) != *negated) && continuation(position)
            }
            Node::Concat(items) => self.match_sequence(items, position, continuation),
            Node::Alternation(branches) => branches
                .iter()
                .any(|branch| self.match_node(branch, position, continuation)),
            Node::Repeat { node, min, max } => {
                self.match_repeat(node, *min, *max, 0, position, continuation)
            }
        }
    }

    fn match_sequence(
        &self,
        items: &[Node],
        position: usize,
        continuation: &mut dyn FnMut(usize) -> bool,
    ) -> bool {
        match items.split_first() {
            None => continuation(position),
            Some((first, rest)) => self.match_node(first, position, &mut |next| {
                self.match_sequence(rest, next, continuation)
            }),
        }
    }

    fn match_repeat(
        &self,
        node: &Node,
        min: u32,
        max: Option<u32>,
        count: u32,
        position: usize,
        continuation: &mut dyn FnMut(usize) -> bool,
    ) -> bool {
        if max.is_none_or(|max| count < max) {
            let matched_more = self.match_node(node, position, &mut |next| {
                // An iteration that consumed nothing cannot help once the minimum is met, and
                // would otherwise loop forever on patterns such as `(a*)*`.
                if next == position && count >= min {
                    return false;
                }
                self.match_repeat(node, min, max, count + 1, next, continuation)
            });
            if matched_more {
                return true;
            }
        }
        count >= min && continuation(position)
    }
}
