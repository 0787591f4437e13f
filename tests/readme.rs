//! The README's variant table is what `bfs --list-variants` prints: each
//! variant's one line lives in one place, `Variant::description`, and the
//! table must say the same words in the same order.

use bfs_tests::run_bfs;

const README: &str = include_str!("../README.md");

/// The rows of the README's `## Variants` table: (name, description).
fn readme_variants() -> Vec<(String, String)> {
    README
        .lines()
        .skip_while(|line| *line != "## Variants")
        .skip(1)
        .take_while(|line| !line.starts_with("## "))
        .filter_map(|line| {
            let (name, rest) = line.strip_prefix("| `")?.split_once("` | ")?;
            Some((name.to_string(), rest.strip_suffix(" |")?.to_string()))
        })
        .collect()
}

#[test]
fn the_readmes_variant_table_is_list_variants() {
    let run = run_bfs(&["--list-variants"]);
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    let listed: Vec<(String, String)> = run
        .stdout
        .lines()
        .map(|line| {
            let (name, description) = line.split_once(' ').expect("a name and a description");
            (name.to_string(), description.trim_start().to_string())
        })
        .collect();
    assert!(!listed.is_empty(), "--list-variants printed nothing");
    assert_eq!(readme_variants(), listed);
}
