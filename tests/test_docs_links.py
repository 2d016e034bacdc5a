"""Every relative link in README.md and docs/*.md, and every docs/<page>.md#<anchor> cited in
the code or in a weights file's provenance (nesbot/data, results/), points to a file that
exists and, where it names one, to a heading of that file.

Anchors follow GitHub's slugs: lowercase; characters other than letters, digits, spaces,
hyphens and underscores dropped; spaces to hyphens. External links are not fetched.
"""

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
CODE_DIRS = ("nesbot", "cython_core", "tests", "scripts", "results")
CODE_SUFFIXES = {".py", ".pyx", ".pxd", ".pyi", ".h", ".c", ".sh", ".json"}

LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")  # [text](target) and ![alt](target)
CITATION = re.compile(r"docs/[\w.-]+\.md#[\w-]+")
FENCE = re.compile(r"^(```|~~~).*?^\1", re.MULTILINE | re.DOTALL)


def slug(heading: str) -> str:
    """GitHub's anchor for a heading's text."""
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


def anchors(page: Path) -> set[str]:
    """The anchors of a Markdown page's headings (a repeated heading gets -1, -2, ...)."""
    seen: set[str] = set()
    for line in FENCE.sub("", page.read_text()).splitlines():
        match = re.match(r"#{1,6}\s+(.*?)\s*#*\s*$", line)
        if match:
            base = slug(re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", match.group(1)).replace("`", ""))
            name, n = base, 0
            while name in seen:
                n += 1
                name = f"{base}-{n}"
            seen.add(name)
    return seen


def problem(source: Path, target: str) -> str | None:
    """What is wrong with a relative link `target` written in `source`, or None."""
    path, _, anchor = target.partition("#")
    file = (source.parent / path).resolve() if path else source
    where = f"{source.relative_to(ROOT)}: {target}"
    if not file.exists():
        return f"{where}: no such file"
    if anchor and file.suffix == ".md" and anchor not in anchors(file):
        return f"{where}: no heading #{anchor}"
    return None


def page_links() -> list[tuple[Path, str]]:
    links = []
    for page in PAGES:
        for target in LINK.findall(FENCE.sub("", page.read_text())):
            if not re.match(r"[a-z][a-z0-9+.-]*:", target):  # http:, https:, mailto: ...
                links.append((page, target))
    return links


def code_citations() -> list[tuple[Path, str]]:
    cites = []
    for directory in CODE_DIRS:
        for file in sorted((ROOT / directory).rglob("*")):
            if file.suffix in CODE_SUFFIXES and file.is_file():
                for cite in CITATION.findall(file.read_text(errors="replace")):
                    cites.append((file, cite))
    return cites


def test_anchor_slugs_follow_github():
    assert slug("Locking and entry delay (ARE)") == "locking-and-entry-delay-are"
    assert slug("nes-py's step boundary") == "nes-pys-step-boundary"
    straddle = "The pad poll straddle, past step ~57,000"
    assert slug(straddle) == "the-pad-poll-straddle-past-step-57000"


def test_pages_have_links_and_the_code_cites_the_docs():
    assert len(page_links()) > 10 and len(code_citations()) > 10


@pytest.mark.parametrize(
    ("source", "target"), page_links(), ids=lambda v: v.name if isinstance(v, Path) else v
)
def test_page_link_resolves(source, target):
    assert problem(source, target) is None, problem(source, target)


@pytest.mark.parametrize(
    ("source", "cite"), code_citations(), ids=lambda v: v.name if isinstance(v, Path) else v
)
def test_code_citation_resolves(source, cite):
    assert problem(ROOT / "README.md", cite) is None, f"{source.relative_to(ROOT)}: {cite}"
