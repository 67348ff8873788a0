from __future__ import annotations

import os
import threading

import pytest

from tooldeck.builtin_plugins._run.ignore import GlobError, compile_glob, walk_files


def make(root, files):
    """Create ``files`` (relative path → text) under ``root``."""
    for relative, text in files.items():
        path = root / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)


def listing(top, root):
    return [file.relative for file in walk_files(top, root)]


@pytest.fixture
def tree(root):
    make(
        root,
        {
            ".gitignore": "build/\n*.log\n!keep.log\n/secret.txt\n",
            "build/out.js": "",
            "app.log": "",
            "keep.log": "",
            "secret.txt": "",
            "src/secret.txt": "",
            "src/.gitignore": "gen/\n!debug.log\n",
            "src/gen/x.py": "",
            "src/debug.log": "",
            "src/trace.log": "",
            "src/main.py": "",
            ".hidden/h.txt": "",
            ".git/config": "",
            ".git/HEAD": "",
        },
    )
    return root


def test_gitignore_files_at_every_level_decide_and_git_itself_is_skipped(tree):
    assert listing(tree, tree) == [
        ".gitignore",
        ".hidden/h.txt",
        "keep.log",
        "src/.gitignore",
        "src/debug.log",
        "src/main.py",
        "src/secret.txt",
    ]


def test_a_subdirectory_walk_still_applies_the_rules_above_it(tree):
    assert listing(tree / "src", tree) == [".gitignore", "debug.log", "main.py", "secret.txt"]


def test_order_is_depth_first_by_name_bytes(root):
    make(root, {"a.txt": "", "a/b.txt": "", "B.txt": "", "a-z/c.txt": ""})
    # A plain sort of the whole paths would put "a-z/c.txt" and "a.txt" before "a/b.txt".
    assert listing(root, root) == ["B.txt", "a/b.txt", "a-z/c.txt", "a.txt"]


def test_an_ignored_directory_cannot_be_re_included(root):
    make(root, {".gitignore": "logs/\n!logs/keep.txt\n", "logs/keep.txt": "", "x": ""})
    assert listing(root, root) == [".gitignore", "x"]


def test_rules_of_the_repository_above_the_location_apply(tmp_path):
    repo = tmp_path / "repo"
    make(repo, {".git/HEAD": "", ".gitignore": "*.tmp\n", "project/a.tmp": "", "project/a.py": ""})
    assert listing(repo / "project", repo / "project") == ["a.py"]


def test_outside_a_repository_nothing_above_the_location_is_read(tmp_path):
    outer = tmp_path / "outer"
    make(outer, {".gitignore": "*.txt\n", "project/a.txt": ""})
    assert listing(outer / "project", outer / "project") == ["a.txt"]


def test_a_nested_repository_starts_afresh(root):
    make(
        root,
        {
            ".gitignore": "*.dat\n",
            "y.dat": "",
            "vendor/lib/.git": "gitdir: x\n",
            "vendor/lib/x.dat": "",
            "vendor/z.dat": "",
        },
    )
    assert listing(root, root) == [".gitignore", "vendor/lib/x.dat"]


def test_a_directory_outside_the_location_reads_only_its_own_rules(tmp_path, root):
    outside = tmp_path / "elsewhere"
    make(outside, {".gitignore": "*.o\n", "a.o": "", "a.c": ""})
    make(tmp_path, {".gitignore": "*.c\n"})
    assert listing(outside, root) == [".gitignore", "a.c"]


def test_directory_symlinks_are_not_followed_and_file_symlinks_are_flagged(root, tmp_path):
    make(tmp_path, {"elsewhere/secret.txt": ""})
    make(root, {"real.txt": ""})
    os.symlink(tmp_path / "elsewhere", root / "linked_dir")
    os.symlink(root / "real.txt", root / "alias.txt")
    walked = [(file.relative, file.link) for file in walk_files(root, root)]
    assert walked == [("alias.txt", True), ("real.txt", False)]


def test_paths_are_absolute_and_the_walk_is_lazy(root):
    make(root, {"a/b.txt": ""})
    walk = walk_files(root, root)
    first = next(walk)
    assert first.path == str(root / "a" / "b.txt") and os.path.isabs(first.path)


@pytest.mark.parametrize(
    ("pattern", "matched", "unmatched"),
    [
        ("*.py", ["a.py", "src/deep/b.py"], ["a.pyc", "a.py/readme.txt"]),
        ("src/*.py", ["src/a.py"], ["src/deep/a.py", "lib/src/a.py"]),
        ("/src/*.py", ["src/a.py"], ["x/src/a.py"]),
        ("./src/*.py", ["src/a.py"], ["x/src/a.py"]),
        ("**/*.py", ["a.py", "x/y/a.py"], ["a.pyx"]),
        ("src/**/*.ts", ["src/a.ts", "src/x/y/a.ts"], ["a.ts", "lib/a.ts"]),
        ("src/**", ["src/a", "src/x/y"], ["src", "lib/src/a"]),
        ("src/", ["src/a", "src/x/y", "lib/src/a"], ["src", "srcx/a"]),
        ("*.{ts,tsx}", ["a.ts", "b/c.tsx"], ["a.js"]),
        ("{src,lib}/*.{c,h}", ["src/a.c", "lib/b.h"], ["doc/a.c"]),
        ("test_?.py", ["test_1.py"], ["test_10.py"]),
        ("[ab].txt", ["a.txt", "x/b.txt"], ["c.txt"]),
        ("[!ab].txt", ["c.txt"], ["a.txt", "/.txt"]),
        ("a**b", ["axxb"], ["a/b"]),
        ("literal[.txt", ["literal[.txt"], ["literalx.txt"]),
        ("un{closed", ["un{closed"], ["unclosed"]),
        ("\\*.md", ["*.md"], ["a.md"]),
        ("README", ["README", "docs/README"], ["README.md"]),
    ],
)
def test_glob_patterns_follow_gitignore_syntax(pattern, matched, unmatched):
    regex = compile_glob(pattern)
    assert [p for p in matched if regex.fullmatch(p)] == matched
    assert [p for p in unmatched if regex.fullmatch(p)] == []


@pytest.mark.parametrize("pattern", ["", "   ", "/"])
def test_an_empty_glob_is_an_error_with_an_example(pattern):
    with pytest.raises(GlobError, match="empty"):
        compile_glob(pattern)


def test_a_set_stop_event_ends_the_walk(root):
    make(root, {"a/1.txt": "", "a/2.txt": "", "b/3.txt": ""})
    stop = threading.Event()
    walked = []
    for file in walk_files(root, root, stop):
        walked.append(file.relative)
        stop.set()
    assert walked == ["a/1.txt"]
