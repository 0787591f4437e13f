//! The command line a benchmark section records: the one that ran, written
//! so that it runs again as written from the folder that holds the bundle
//! (docs/bundle.md), on any machine.

use std::path::Path;

/// The program as a recorded command names it: the bundle's `bfs`.
const PROGRAM: &str = "bundle/bfs";

/// `arguments` (a process's, the program first) as the command to record:
/// the program as `bundle/bfs`, and every path (an argument, or an
/// option's value after `=`, holding a `/`; generated graphs, `gen:…`,
/// hold none) as its file name alone: a file of the folder the command
/// runs from, not one machine's folders.
pub fn recorded(arguments: impl IntoIterator<Item = String>) -> String {
    let mut arguments = arguments.into_iter();
    let program = arguments.next().map(|_| PROGRAM.to_string());
    program
        .into_iter()
        .chain(arguments.map(|argument| match argument.split_once('=') {
            Some((option, value)) if option.starts_with("--") => {
                format!("{option}={}", file_name(value))
            }
            _ => file_name(&argument).to_string(),
        }))
        .collect::<Vec<_>>()
        .join(" ")
}

/// `argument`'s file name where it is a path, else `argument`.
fn file_name(argument: &str) -> &str {
    if !argument.contains('/') || argument.starts_with("gen:") {
        return argument;
    }
    Path::new(argument)
        .file_name()
        .and_then(|name| name.to_str())
        .unwrap_or(argument)
}

#[cfg(test)]
mod tests {
    use super::recorded;

    fn words(line: &str) -> Vec<String> {
        line.split(' ').map(String::from).collect()
    }

    #[test]
    fn paths_become_file_names_and_the_program_the_bundles() {
        let ran = "/root/bundle/bfs bench --gpus 2,4 --graph /tmp/k28.bcsr --graph gen:kron:26 \
                   --rows ../carry/rows.json --markdown=/root/out/BENCHMARKS.md --gapbs carry/gapbs/";
        assert_eq!(
            recorded(words(ran)),
            "bundle/bfs bench --gpus 2,4 --graph k28.bcsr --graph gen:kron:26 \
             --rows rows.json --markdown=BENCHMARKS.md --gapbs gapbs"
        );
    }

    #[test]
    fn words_without_a_path_stay() {
        let ran = "./bfs bench --sources 32 --graph gen:grid:2048x2048:0.05 --python python3";
        assert_eq!(
            recorded(words(ran)),
            "bundle/bfs bench --sources 32 --graph gen:grid:2048x2048:0.05 --python python3"
        );
    }
}
