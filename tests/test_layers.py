"""The package's layers point down: the core (cython_core/, installed as nesbot._core) imports
nothing of nesbot above it, and no two modules of nesbot import each other, directly or
through others.

Imports are read from the sources, wherever they are in a module (a function's lazy import
is a dependency too), except those under `if TYPE_CHECKING:`, which only the type checker
follows.
"""

import ast
import pkgutil
import re
from pathlib import Path

ROOT = Path(__file__).parents[1]
PACKAGE = ROOT / "nesbot"
CORE = ROOT / "cython_core"
CIMPORT = re.compile(r"^\s*(?:from\s+(nesbot[\w.]*)\s+c?import|c?import\s+(nesbot[\w.]*))", re.M)


def module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imported(tree: ast.AST, module: str, modules: set[str], typing: bool = False) -> set[str]:
    """The modules of `modules` that `tree` (the source of `module`) imports; those under
    `if TYPE_CHECKING:` only with `typing`. `from package import name` imports the module
    package.name if there is one, else the package."""
    found: set[str] = set()

    def visit(node: ast.AST) -> None:
        if (
            not typing
            and isinstance(node, ast.If)
            and ast.unparse(node.test).endswith("TYPE_CHECKING")
        ):
            for child in node.orelse:
                visit(child)
            return
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:  # relative: from the module's own package
                package = module.split(".")[: -node.level]
                base = ".".join([*package, base] if base else package)
            for alias in node.names:
                name = f"{base}.{alias.name}"
                found.add(name if name in modules else base)
        for child in ast.iter_child_nodes(node):
            visit(child)

    visit(tree)
    return found & modules - {module}


def package_graph(typing: bool) -> dict[str, set[str]]:
    """Which modules of nesbot (the core left out) each imports."""
    sources = {
        module_name(path): path for path in PACKAGE.rglob("*.py") if "_core" not in path.parts
    }
    return {
        module: imported(ast.parse(path.read_text(encoding="utf-8")), module, set(sources), typing)
        for module, path in sources.items()
    }


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def connect(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        for successor in sorted(graph[node]):
            if successor not in index:
                connect(successor)
                low[node] = min(low[node], low[successor])
            elif successor in stack:
                low[node] = min(low[node], index[successor])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            connect(node)
    return found


def test_the_core_imports_nothing_above_it():
    reaching_up = []
    for path in sorted(CORE.glob("*.py*")) + sorted(CORE.glob("*.pxd")):
        if path.suffix not in (".py", ".pyx", ".pxd", ".pyi"):
            continue
        for match in CIMPORT.finditer(path.read_text(encoding="utf-8")):
            name = match[1] or match[2]
            if not name.startswith("nesbot._core"):
                reaching_up.append(f"{path.name}: {name}")
    assert reaching_up == []


def test_no_module_of_the_package_imports_itself_through_others():
    assert cycles(package_graph(typing=False)) == []


def test_nor_names_its_types_through_others():
    # `import nesbot` names every public type for the type checker (its lazy names load
    # their modules when used), which all of them reach by importing nesbot itself
    graph = package_graph(typing=True)
    graph["nesbot"] = set()
    assert cycles(graph) == []


# The package's layers, lowest first (docs/architecture.md); the core is below them all. A
# module imports from its own folder or a lower layer. The modules beside the folders
# (errors, progress, _version) import none of them and may be imported by any.
LAYERS = (("nes", "evaluation"), ("show",), ("bot",), ("rating",), ("lab",), ("cli",))
RANK = {folder: rank for rank, folders in enumerate(LAYERS) for folder in folders}


def test_the_folders_import_only_from_lower_layers():
    def folder(module: str) -> str | None:
        parts = module.split(".")
        return parts[1] if len(parts) >= 2 else None

    upward = []
    for module, imports in package_graph(typing=True).items():
        if module in ("nesbot", "nesbot.__main__"):
            continue  # the package's lazy public names, and `python -m nesbot`
        here = folder(module)
        for name in imports:
            there = folder(name)
            if there not in RANK or there == here:
                continue  # the core, errors, progress, _version; or its own folder
            if here not in RANK or RANK[there] >= RANK[here]:
                upward.append(f"{module} -> {name}")
    assert upward == []


def test_nes_py_is_imported_by_the_emulator_module_alone():
    import nes_py

    nes_py_modules = {"nes_py"} | {
        found.name for found in pkgutil.walk_packages(nes_py.__path__, "nes_py.")
    }
    importers = set()
    for path in PACKAGE.rglob("*.py"):
        module = module_name(path)
        if imported(ast.parse(path.read_text(encoding="utf-8")), module, nes_py_modules):
            importers.add(module)
    assert importers == {"nesbot.nes.emulator"}


def test_the_graph_sees_imports_in_functions_and_for_type_checking_when_asked():
    source = (
        "from typing import TYPE_CHECKING\n"
        "if TYPE_CHECKING:\n    from nesbot.nes.emulator import Emulator\n"
        "def f():\n    from nesbot.show.frames import WholeFrames\n"
        "from ..nes import ram\nfrom .. import Bot\n"
    )
    modules = {
        "nesbot",
        "nesbot.nes.emulator",
        "nesbot.show.frames",
        "nesbot.nes.ram",
        "nesbot.bot.session",
    }
    tree = ast.parse(source)
    assert imported(tree, "nesbot.bot.session", modules) == {
        "nesbot.show.frames",
        "nesbot",
        "nesbot.nes.ram",
    }
    assert imported(tree, "nesbot.bot.session", modules, typing=True) == {
        "nesbot.nes.emulator",
        "nesbot.show.frames",
        "nesbot",
        "nesbot.nes.ram",
    }
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
