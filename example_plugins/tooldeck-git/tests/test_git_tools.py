"""The four tools against real repositories: what they report, and their declared outputs."""

from __future__ import annotations

import tooldeck

import tooldeck_git

GIT_TOOLS = ["git_diff", "git_log", "git_show", "git_status"]


def commit_files(root, run_git, *names):
    for name in names:
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(f"{name}\n")
        run_git(root, "add", name)
        run_git(root, "commit", "-q", "-m", f"Add {name}")


def test_the_pack_adds_four_code_mode_tools_in_namespace_git(repo, open_host):
    catalog = open_host(repo).service.catalog
    entries = [catalog.tools[name] for name in GIT_TOOLS]
    assert {e.source for e in entries} == {"tooldeck_git"}
    assert all(e.tool.namespace == "git" and e.tool.codemode for e in entries)
    assert all(e.tool.permission == "git.read" for e in entries)
    assert catalog.namespaces["git"].description.startswith("Read-only git")


def test_outputs_are_declared(repo, open_host, mode):
    definitions = {d["name"]: d for d in open_host(repo).snapshot().definitions_for("mcp")}
    if mode == "code":  # the outputs are the return types of the stubs
        stubs = definitions["execute"]["description"]
        assert "class tools_git:" in stubs and "async def status(self" in stubs
        assert not [name for name in GIT_TOOLS if name in definitions]
        return
    status = definitions["git_status"]["outputSchema"]["properties"]
    assert {"branch", "staged", "unstaged", "untracked"} <= set(status)
    assert all("outputSchema" in definitions[name] for name in GIT_TOOLS)


async def test_a_program_reads_the_typed_outputs(repo, open_host, mode):
    snapshot = open_host(repo).snapshot()
    program = (
        "status = await tools.git.status()\n"
        "log = await tools.git.log()\n"
        "[status['branch'], len(log['commits'])]"
    )
    call = tooldeck.ToolCall("call_1", "execute", {"code": program})
    outcome = await tooldeck.run_tool_call(snapshot, call, session_id="s", message_id="m")
    if mode == "native":
        assert outcome.status == "failed" and "not available" in outcome.error.message
        return
    assert outcome.status == "completed", outcome.content
    assert outcome.output["result"] == ["main", 1]


def test_the_installed_entry_point_loads_the_pack(repo):
    """Needs the pack installed: found by its distribution name."""
    host = tooldeck.Host.open(repo, plugins=["tooldeck-git"])
    [info] = [p for p in host.plugins if p.name == "tooldeck-git"]
    assert info.status == "active", info.reason
    assert info.provides == tuple(GIT_TOOLS)


# -- git_status ----------------------------------------------------------------------------
async def test_status_of_a_clean_repository(repo, call, run_git):
    outcome = await call(repo, "git_status")
    assert outcome.status == "completed", outcome.error
    out = outcome.output
    assert out["root"] == str(repo)
    assert out["branch"] == "main"
    assert out["commit"] == run_git(repo, "rev-parse", "HEAD").strip()
    assert out["staged"] == out["unstaged"] == out["untracked"] == []
    assert "working tree clean" in outcome.content[0].text


async def test_status_sorts_changes_into_staged_unstaged_and_untracked(repo, call, run_git):
    (repo / "README.md").write_text("# changed\n")
    (repo / "new file.txt").write_text("new\n")
    run_git(repo, "add", "new file.txt")
    (repo / "scratch.txt").write_text("?\n")
    run_git(repo, "mv", "README.md", "README.rst")
    out = (await call(repo, "git_status")).output
    assert out["staged"] == [
        {"path": "README.rst", "change": "renamed", "original_path": "README.md"},
        {"path": "new file.txt", "change": "added", "original_path": None},
    ]
    assert out["unstaged"] == [{"path": "README.rst", "change": "modified", "original_path": None}]
    assert out["untracked"] == ["scratch.txt"]


async def test_status_paths_are_relative_to_the_root_even_from_a_subdirectory(repo, call, run_git):
    commit_files(repo, run_git, "src/a.py")
    (repo / "src" / "a.py").write_text("changed\n")
    (repo / "src" / "new").mkdir()
    (repo / "src" / "new" / "b.py").write_text("")
    out = (await call(repo, "git_status", path="src")).output
    assert out["root"] == str(repo)
    assert [c["path"] for c in out["unstaged"]] == ["src/a.py"]
    assert out["untracked"] == ["src/new/"]  # git collapses untracked directories


async def test_status_before_the_first_commit(project, call):
    outcome = await call(project, "git_status")
    assert outcome.output["commit"] is None
    assert outcome.output["branch"] == "main"
    assert "No commits yet." in outcome.content[0].text


async def test_status_on_a_detached_head(repo, call, run_git):
    run_git(repo, "checkout", "-q", "--detach")
    out = (await call(repo, "git_status")).output
    assert out["branch"] is None
    assert out["commit"]


# -- git_log -------------------------------------------------------------------------------
async def test_log_lists_commits_newest_first(repo, call, run_git):
    commit_files(repo, run_git, "a.txt", "b.txt")
    outcome = await call(repo, "git_log")
    commits = outcome.output["commits"]
    assert [c["subject"] for c in commits] == ["Add b.txt", "Add a.txt", "Add README"]
    assert commits[0] == {
        "sha": run_git(repo, "rev-parse", "HEAD").strip(),
        "author": "Ada Lovelace",
        "email": "ada@example.com",
        "date": "2024-05-01T12:00:00+02:00",
        "subject": "Add b.txt",
    }
    assert outcome.output["more"] is False
    assert outcome.content[0].text.splitlines()[0].endswith("Ada Lovelace: Add b.txt")


async def test_log_pages_with_max_count_and_skip(repo, call, run_git):
    commit_files(repo, run_git, "a.txt", "b.txt")
    first = await call(repo, "git_log", max_count=2)
    assert [c["subject"] for c in first.output["commits"]] == ["Add b.txt", "Add a.txt"]
    assert first.output["more"] is True
    assert "skip=2" in first.content[0].text
    rest = await call(repo, "git_log", max_count=2, skip=2)
    assert [c["subject"] for c in rest.output["commits"]] == ["Add README"]
    assert rest.output["more"] is False


async def test_log_of_one_file_and_of_a_range(repo, call, run_git):
    commit_files(repo, run_git, "a.txt", "b.txt")
    by_file = await call(repo, "git_log", file="a.txt")
    assert [c["subject"] for c in by_file.output["commits"]] == ["Add a.txt"]
    ranged = await call(repo, "git_log", ref="HEAD~2..HEAD")
    assert [c["subject"] for c in ranged.output["commits"]] == ["Add b.txt", "Add a.txt"]


async def test_log_of_an_empty_repository_is_empty(project, call):
    outcome = await call(project, "git_log")
    assert outcome.status == "completed"
    assert outcome.output["commits"] == []


async def test_log_of_an_unknown_ref_fails_with_a_hint(repo, call):
    outcome = await call(repo, "git_log", ref="nope")
    assert outcome.status == "failed"
    assert "unknown revision" in outcome.error.message
    assert "git_log lists commits" in outcome.error.message


# -- git_diff ------------------------------------------------------------------------------
async def test_diff_shows_unstaged_changes(repo, call):
    (repo / "README.md").write_text("# demo\nmore\n")
    outcome = await call(repo, "git_diff")
    out = outcome.output
    assert out["files"] == [
        {"path": "README.md", "added": 1, "deleted": 0, "binary": False, "original_path": None}
    ]
    assert "+more" in out["patch"] and out["truncated"] is False
    assert "+more" in outcome.content[0].text


async def test_diff_staged_against_a_ref_and_of_one_file(repo, call, run_git):
    (repo / "a.txt").write_text("a\n")
    run_git(repo, "add", "a.txt")
    assert (await call(repo, "git_diff")).output["files"] == []
    assert [f["path"] for f in (await call(repo, "git_diff", staged=True)).output["files"]] == [
        "a.txt"
    ]
    run_git(repo, "commit", "-q", "-m", "a")
    (repo / "README.md").write_text("x\n")
    against = await call(repo, "git_diff", ref="HEAD~1")
    assert [f["path"] for f in against.output["files"]] == ["README.md", "a.txt"]
    one = await call(repo, "git_diff", ref="HEAD~1", file="a.txt")
    assert [f["path"] for f in one.output["files"]] == ["a.txt"]


async def test_diff_without_changes_says_where_to_look(repo, call):
    outcome = await call(repo, "git_diff")
    assert outcome.output == {"root": str(repo), "files": [], "patch": "", "truncated": False}
    assert "staged=true" in outcome.content[0].text


async def test_diff_counts_binary_files(repo, call, run_git):
    (repo / "logo.bin").write_bytes(bytes(range(256)))
    run_git(repo, "add", "logo.bin")
    [stat] = (await call(repo, "git_diff", staged=True)).output["files"]
    assert stat["binary"] is True and stat["added"] == 0


async def test_a_huge_patch_is_cut_and_flagged(repo, call):
    (repo / "README.md").write_text("".join(f"line {i} {'x' * 60}\n" for i in range(10_000)))
    outcome = await call(repo, "git_diff")
    out = outcome.output
    assert out["truncated"] is True
    assert len(out["patch"].encode()) <= 256 * 1024
    assert out["files"][0]["added"] == 10_000  # the counts are complete
    assert outcome.status == "completed"


# -- git_show ------------------------------------------------------------------------------
async def test_show_describes_a_commit(repo, call, run_git):
    outcome = await call(repo, "git_show")
    commit = outcome.output["commit"]
    assert commit["subject"] == "Add README"
    assert commit["body"] == "The first commit."
    assert commit["parents"] == []
    assert outcome.output["files"][0]["path"] == "README.md"
    assert "+# demo" in outcome.output["patch"]
    text = outcome.content[0].text
    assert text.startswith(f"commit {run_git(repo, 'rev-parse', 'HEAD').strip()}")


async def test_show_peels_an_annotated_tag(repo, call, run_git):
    run_git(repo, "tag", "-a", "v1", "-m", "release")
    outcome = await call(repo, "git_show", rev="v1")
    assert outcome.output["commit"]["sha"] == run_git(repo, "rev-parse", "HEAD").strip()


async def test_show_of_a_merge_diffs_against_the_first_parent(repo, call, run_git):
    run_git(repo, "checkout", "-q", "-b", "side")
    commit_files(repo, run_git, "side.txt")
    run_git(repo, "checkout", "-q", "main")
    commit_files(repo, run_git, "main.txt")
    run_git(repo, "merge", "-q", "--no-edit", "side")
    out = (await call(repo, "git_show")).output
    assert len(out["commit"]["parents"]) == 2
    assert [f["path"] for f in out["files"]] == ["side.txt"]


async def test_show_refuses_what_is_not_a_commit(repo, call):
    outcome = await call(repo, "git_show", rev="HEAD:README.md")
    assert outcome.status == "failed"
    assert "not a commit" in outcome.error.message
    assert "read tool" in outcome.error.message


async def test_show_in_an_empty_repository(project, call):
    outcome = await call(project, "git_show")
    assert outcome.status == "failed"
    assert "no commits yet" in outcome.error.message


def test_tools_are_the_module_constants(repo, open_host):
    catalog = open_host(repo).service.catalog
    assert [catalog.tools[f"git_{t.name}"].tool for t in tooldeck_git.TOOLS] == list(
        tooldeck_git.TOOLS
    )
