//! Splits `<think>…</think>` reasoning out of streamed answer text (DeepSeek-R1 and its distills
//! on Ollama and other servers that return reasoning inline).
//!
//! Tags may arrive split across chunks (`<thi` + `nk>`): a possible tag start at the end of a
//! chunk is held back until the next chunk decides. Many chat templates already put `<think>` in
//! the prompt, so the output starts INSIDE the block with only `</think>` to show it: text that
//! does not start with `<think>` is therefore held until a tag or the end of the stream decides
//! what it was. A block still open at the end is closed (its text is reasoning).

use super::model_event::ModelEvent;
use super::text::find_str;

const OPEN_TAG: &str = "<think>";
const CLOSE_TAG: &str = "</think>";

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Position {
    /// Nothing but whitespace (or a partial `<think>`) seen yet, or text whose kind only a later
    /// tag can tell.
    Undecided,
    InsideThink,
    OutsideThink,
}

/// Turns a stream of answer text into [`ModelEvent::TextDelta`] and
/// [`ModelEvent::ReasoningDelta`] events.
#[derive(Debug)]
pub struct ThinkTagSplitter {
    position: Position,
    held: String,
    /// While undecided, the held text before this offset is known to contain no tag.
    searched_up_to: usize,
    /// The answer after `</think>` usually starts with blank lines that are not part of it.
    trim_next_text: bool,
}

impl Default for ThinkTagSplitter {
    fn default() -> Self {
        Self::new()
    }
}

impl ThinkTagSplitter {
    pub fn new() -> Self {
        Self {
            position: Position::Undecided,
            held: String::new(),
            searched_up_to: 0,
            trim_next_text: false,
        }
    }

    /// Takes the next piece of answer text; appends what can already be classified to `out`.
    pub fn push(&mut self, text: &str, out: &mut Vec<ModelEvent>) {
        self.held.push_str(text);
        loop {
            let progressed = match self.position {
                Position::Undecided => self.advance_undecided(out),
                Position::InsideThink => self.advance_known(CLOSE_TAG, out),
                Position::OutsideThink => self.advance_known(OPEN_TAG, out),
            };
            if !progressed {
                return;
            }
        }
    }

    /// The provider delivers reasoning in its own field, so the answer cannot have started inside
    /// a think block: text held while undecided is answer text (later tags still split).
    pub fn reasoning_arrived_separately(&mut self, out: &mut Vec<ModelEvent>) {
        if self.position == Position::Undecided {
            self.position = Position::OutsideThink;
            self.push("", out);
        }
    }

    /// Ends the text: held text is delivered, undecided text as answer text, an open block as
    /// reasoning.
    pub fn finish(&mut self, out: &mut Vec<ModelEvent>) {
        if self.position == Position::OutsideThink && self.trim_next_text {
            self.held = self.held.trim_start().to_owned();
        }
        let held = std::mem::take(&mut self.held);
        match self.position {
            Position::InsideThink => push_reasoning(held, out),
            Position::Undecided | Position::OutsideThink => push_text(held, out),
        }
        self.position = Position::Undecided;
        self.searched_up_to = 0;
        self.trim_next_text = false;
    }

    fn advance_undecided(&mut self, out: &mut Vec<ModelEvent>) -> bool {
        let trimmed = self.held.trim_start();
        if trimmed.is_empty() || (trimmed.len() < OPEN_TAG.len() && OPEN_TAG.starts_with(trimmed)) {
            return false;
        }
        if let Some(after_tag) = trimmed.strip_prefix(OPEN_TAG) {
            self.held = after_tag.to_owned();
            self.position = Position::InsideThink;
            return true;
        }
        let search_start = floor_char_boundary(
            &self.held,
            self.searched_up_to.saturating_sub(CLOSE_TAG.len()),
        );
        let close = find_str(&self.held[search_start..], CLOSE_TAG).map(|at| at + search_start);
        let open = find_str(&self.held[search_start..], OPEN_TAG).map(|at| at + search_start);
        self.searched_up_to = self.held.len();
        match (open, close) {
            (Some(open), close) if close.is_none_or(|close| open < close) => {
                let rest = self.held.split_off(open + OPEN_TAG.len());
                self.held.truncate(open);
                push_text(std::mem::replace(&mut self.held, rest), out);
                self.position = Position::InsideThink;
                true
            }
            (_, Some(close)) => {
                let rest = self.held.split_off(close + CLOSE_TAG.len());
                self.held.truncate(close);
                push_reasoning(std::mem::replace(&mut self.held, rest), out);
                self.position = Position::OutsideThink;
                self.trim_next_text = true;
                true
            }
            _ => false,
        }
    }

    /// Inside or outside a block: everything before the awaited tag is of the current kind.
    fn advance_known(&mut self, awaited_tag: &str, out: &mut Vec<ModelEvent>) -> bool {
        if self.position == Position::OutsideThink && self.trim_next_text {
            let trimmed = self.held.trim_start();
            if trimmed.is_empty() {
                self.held.clear();
                return false;
            }
            self.held = trimmed.to_owned();
            self.trim_next_text = false;
        }
        let (delivered, found_tag) = match find_str(&self.held, awaited_tag) {
            Some(tag_start) => {
                let rest = self.held.split_off(tag_start + awaited_tag.len());
                self.held.truncate(tag_start);
                (std::mem::replace(&mut self.held, rest), true)
            }
            None => {
                let keep = partial_tag_suffix_len(&self.held, awaited_tag);
                let rest = self.held.split_off(self.held.len() - keep);
                (std::mem::replace(&mut self.held, rest), false)
            }
        };
        match self.position {
            Position::InsideThink => push_reasoning(delivered, out),
            _ => push_text(delivered, out),
        }
        if found_tag {
            self.position = match self.position {
                Position::InsideThink => {
                    self.trim_next_text = true;
                    Position::OutsideThink
                }
                _ => Position::InsideThink,
            };
        }
        found_tag
    }
}

/// The length of the longest end of `text` that could be the start of `tag`.
fn partial_tag_suffix_len(text: &str, tag: &str) -> usize {
    (1..tag.len())
        .rev()
        .find(|&length| text.ends_with(&tag[..length]))
        .unwrap_or(0)
}

fn floor_char_boundary(text: &str, mut index: usize) -> usize {
    while !text.is_char_boundary(index) {
        index -= 1;
    }
    index
}

fn push_text(text: String, out: &mut Vec<ModelEvent>) {
    if !text.is_empty() {
        out.push(ModelEvent::TextDelta(text));
    }
}

fn push_reasoning(text: String, out: &mut Vec<ModelEvent>) {
    if !text.is_empty() {
        out.push(ModelEvent::ReasoningDelta(text));
    }
}
