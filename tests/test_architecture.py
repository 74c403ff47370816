"""ARCHITECTURE.md stays true: every module under src/nbayes is named in it, no import goes up
its table of layers (except the one Dask door it names), and the imports form no circle.

The imports are read from the source (module level and inside functions; those under
``if TYPE_CHECKING:`` are not imports at run time and are left out)."""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SRC = ROOT / "src" / "nbayes"
DOC = ROOT / "ARCHITECTURE.md"
#: The one import allowed to go up a layer (the lazily imported Dask door), as (from, to).
DOOR = ("_dispatch.py", "distributed/")


def module_files() -> dict[str, Path]:
    """Dotted module name → file, for every module of the package."""
    out = {}
    for path in sorted(SRC.rglob("*.py")):
        parts = list(path.relative_to(SRC.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts = parts[:-1]
        out[".".join(parts)] = path
    return out


def imports_of(path: Path, modules: dict[str, Path]) -> set[str]:
    """The nbayes modules ``path`` imports, anywhere but under ``if TYPE_CHECKING:``."""
    name = next(m for m, p in modules.items() if p == path)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: set[str] = set()

    def visit(node: ast.AST) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.If) and "TYPE_CHECKING" in ast.unparse(child.test):
                continue
            if isinstance(child, ast.ImportFrom):
                if child.level:
                    base = package.split(".")[: len(package.split(".")) - (child.level - 1)]
                    module = ".".join(base + ([child.module] if child.module else []))
                else:
                    module = child.module or ""
                for alias in child.names:
                    full = f"{module}.{alias.name}"
                    found.add(full if full in modules else module)
            elif isinstance(child, ast.Import):
                found.update(alias.name for alias in child.names)
            visit(child)

    visit(ast.parse(path.read_text()))
    return {m for m in found if m in modules and m != name}


def graph() -> tuple[dict[str, set[str]], dict[str, str]]:
    """(imports per module, each module's path relative to src/nbayes)."""
    modules = module_files()
    relative = {m: str(p.relative_to(SRC)) for m, p in modules.items()}
    return {m: imports_of(p, modules) for m, p in modules.items()}, relative


def layers() -> list[tuple[str, list[str]]]:
    """The rows of ARCHITECTURE.md's table of layers, top first: (layer, its entries)."""
    text = DOC.read_text()
    section = text.split("## Layers", 1)[1].split("\n## ", 1)[0]
    rows = []
    for line in section.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) < 3 or cells[0] in ("layer", "") or set(cells[0]) <= {"-"}:
            continue
        rows.append((cells[0], re.findall(r"`([^`]+)`", cells[1])))
    return rows


def unit_of(relative: str, placed: dict[str, int]) -> str:
    """The entry of the table a module falls under: itself, else its package (``cli/``)."""
    if relative in placed:
        return relative
    return relative.split("/")[0] + "/"


def test_the_table_of_layers_is_read():
    rows = layers()
    assert [name for name, _ in rows][:3] == ["entry points", "front doors", "models"]
    assert any("model.py" in entries for _, entries in rows)


def test_every_module_is_named_in_architecture_md():
    text = DOC.read_text()
    _, relative = graph()
    named = set(re.findall(r"`([^`\s]+\.py)`", text))
    missing = sorted(r for r in relative.values() if r not in named)
    assert not missing, f"modules not named in ARCHITECTURE.md's module map: {missing}"


def test_every_module_has_a_layer():
    placed = {entry: i for i, (_, entries) in enumerate(layers()) for entry in entries}
    _, relative = graph()
    unplaced = sorted(r for r in relative.values() if unit_of(r, placed) not in placed)
    assert not unplaced, f"modules in no row of ARCHITECTURE.md's layers: {unplaced}"


def upward_imports(imports: dict[str, set[str]], relative: dict[str, str]) -> list[str]:
    """Every import that goes up a row of the table (the Dask door excepted), in words."""
    rows = layers()
    placed = {entry: i for i, (_, entries) in enumerate(rows) for entry in entries}
    upward = []
    for module, targets in imports.items():
        source = unit_of(relative[module], placed)
        for target in targets:
            goal = unit_of(relative[target], placed)
            if source == goal or (source, goal) == DOOR:
                continue
            if placed[goal] < placed[source]:
                upward.append(
                    f"{relative[module]} ({rows[placed[source]][0]}) imports "
                    f"{relative[target]} ({rows[placed[goal]][0]})"
                )
    return sorted(upward)


def test_no_import_goes_up_a_layer_except_the_dask_door():
    imports, relative = graph()
    upward = upward_imports(imports, relative)
    assert not upward, "imports that go up a layer:\n" + "\n".join(upward)
    assert f"`{DOOR[0]}` → `{DOOR[1]}`" in DOC.read_text()  # the door is the one written down


def test_a_planted_upward_import_is_found():
    imports, relative = graph()
    by_path = {r: m for m, r in relative.items()}
    imports[by_path["_kernels.py"]] = imports[by_path["_kernels.py"]] | {by_path["model.py"]}
    assert upward_imports(imports, relative) == [
        "_kernels.py (kernels) imports model.py (models)"
    ]


def test_the_imports_form_no_circle():
    imports, relative = graph()
    state: dict[str, int] = {}  # 1: on the current path, 2: done
    path: list[str] = []

    def walk(module: str) -> list[str] | None:
        state[module] = 1
        path.append(module)
        for target in sorted(imports[module]):
            if state.get(target) == 1:
                return [*path[path.index(target) :], target]
            if target not in state:
                found = walk(target)
                if found:
                    return found
        path.pop()
        state[module] = 2
        return None

    for module in sorted(imports):
        if module not in state:
            circle = walk(module)
            assert circle is None, "import circle: " + " → ".join(relative[m] for m in circle)


#: The house's size limits: a module or a class longer than these is doing more than one job.
MODULE_LINES, CLASS_LINES = 800, 400


def test_no_module_and_no_class_is_too_long():
    too_long = []
    for path in sorted(SRC.rglob("*.py")):
        text = path.read_text()
        name = str(path.relative_to(SRC))
        if text.count("\n") > MODULE_LINES:
            too_long.append(f"{name}: {text.count(chr(10))} lines")
        for node in ast.walk(ast.parse(text)):
            if isinstance(node, ast.ClassDef):
                length = node.end_lineno - node.lineno + 1
                if length > CLASS_LINES:
                    too_long.append(f"{name}: class {node.name}, {length} lines")
    assert not too_long, too_long
