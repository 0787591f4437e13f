//! `BENCHMARKS.md` is wholly generated, section by section: each mode of
//! `bfs bench` (and `cargo xtask bench --loader`) replaces only its own
//! section and keeps the others; the main table is everything before the
//! first of them. A crate of its own, on `std` alone, so that xtask, which
//! builds before the CUDA libraries are there, imports it too.

/// Where a section ends and the next begins.
pub const FURTHER_SECTIONS: &str = "\n## ";

/// `text` with the section under `heading` (from the heading up to the
/// next section) replaced by `section`, or with `section` appended where
/// `text` has none; ends with one newline.
pub fn replace_section(text: &str, heading: &str, section: &str) -> String {
    let replaced = match text.find(heading) {
        Some(start) => {
            let after = start + heading.len();
            let end = text[after..]
                .find(FURTHER_SECTIONS)
                .map_or(text.len(), |offset| after + offset + 1);
            format!("{}{section}\n{}", &text[..start], &text[end..])
        }
        None => format!("{}\n\n{section}", text.trim_end()),
    };
    format!("{}\n", replaced.trim())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_section_is_replaced_up_to_the_next_and_appended_where_missing() {
        let text = "# Table\n\nrows\n\n## A\n\nold a\n\n## B\n\nold b\n";
        assert_eq!(
            replace_section(text, "## A", "## A\n\nnew a\n"),
            "# Table\n\nrows\n\n## A\n\nnew a\n\n## B\n\nold b\n"
        );
        assert_eq!(
            replace_section(text, "## B", "## B\n\nnew b\n"),
            "# Table\n\nrows\n\n## A\n\nold a\n\n## B\n\nnew b\n"
        );
        assert_eq!(
            replace_section(text, "## C", "## C\n\nc\n"),
            "# Table\n\nrows\n\n## A\n\nold a\n\n## B\n\nold b\n\n## C\n\nc\n"
        );
    }
}
