"""Opening an input file of the ``fmeasure`` command, whatever its name says.

:func:`open_input` checks that the path is a readable file and tells from its first bytes whether
the content is compressed (gzip, bz2, xz, zstd, or a zip archive of one file); :class:`Content`
then gives a stream of the decompressed bytes, and :func:`text_head` the start of a text file,
or one line saying why it is not text (a ``.npy`` array, an Excel workbook, another encoding
than UTF-8, NUL bytes).
"""

from __future__ import annotations

import bz2
import contextlib
import gzip
import lzma
import re
import zipfile
import zlib
from pathlib import Path

from fmeasure.cli._common import DataError, UsageError

#: bytes of the (decompressed) content read to tell what it is and how its fields are separated
HEAD_BYTES = 2**16
#: what reading compressed content raises when it is corrupt or cut short
DECOMPRESSION_ERRORS = (OSError, EOFError, zlib.error, lzma.LZMAError, zipfile.BadZipFile)
#: the start of an OLE2 compound file: an Excel .xls workbook (or another Office document)
_OLE2 = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"


def compression_of(first: bytes) -> str | None:
    """The compression whose magic bytes start ``first``, or None (plain content).

    >>> compression_of(gzip.compress(b"a,b")), compression_of(bz2.compress(b"a,b")), compression_of(b"a,b")
    ('gzip', 'bz2', None)
    """
    if first.startswith(b"\x1f\x8b"):
        return "gzip"
    # "BZh" and a block size, then the magic of a block (the digits of pi) or of the stream's end
    if first[:3] == b"BZh" and first[3:4].isdigit() and first[4:10] in (b"1AY&SY", b"\x17rE8P\x90"):
        return "bz2"
    if first.startswith(b"\xfd7zXZ\x00"):
        return "xz"
    if first.startswith(b"\x28\xb5\x2f\xfd"):
        return "zstd"
    if first.startswith((b"PK\x03\x04", b"PK\x05\x06")):
        return "zip"
    return None


class Content:
    """The content of an input file: ``compression`` (None, gzip, bz2, xz, zstd or zip) and, for a
    zip archive, its one ``member``. :meth:`open` yields the decompressed bytes."""

    def __init__(self, path: Path, label: str, compression: str | None, member: str | None = None):
        self.path, self.label, self.compression, self.member = path, label, compression, member

    @contextlib.contextmanager
    def open(self):
        """A binary stream of the decompressed content (closed when the block ends)."""
        with contextlib.ExitStack() as stack:
            c = self.compression
            if c is None:
                f = stack.enter_context(open(self.path, "rb"))  # noqa: SIM115
            elif c == "gzip":
                f = stack.enter_context(gzip.open(self.path, "rb"))
            elif c == "bz2":
                f = stack.enter_context(bz2.open(self.path, "rb"))
            elif c == "xz":
                f = stack.enter_context(lzma.open(self.path, "rb"))
            elif c == "zstd":
                import zstandard

                raw = stack.enter_context(open(self.path, "rb"))  # noqa: SIM115
                f = stack.enter_context(zstandard.ZstdDecompressor().stream_reader(raw))
            else:
                archive = stack.enter_context(zipfile.ZipFile(self.path))
                f = stack.enter_context(archive.open(self.member))
            yield f

    def what(self) -> str:
        """How the content is stored, for messages: 'gzip content', or 'content' if plain."""
        return f"{self.compression} content" if self.compression else "content"

    def read(self, size: int = -1, failing: str = "not a readable text table") -> bytes:
        """The first ``size`` decompressed bytes (all if -1). Corrupt content is a DataError:
        ``<file>: <failing> (gzip content: <why>)``."""
        try:
            with self.open() as f:
                return f.read(size)
        except DECOMPRESSION_ERRORS as exc:
            raise DataError(f"{self.label}: {failing} ({self.what()}: {exc})") from None


def check_exists(path: Path):
    """A usage error for a path that does not exist or is a folder."""
    if not path.exists():
        raise UsageError(f"{path}: no such file")
    if path.is_dir():
        raise UsageError(f"{path}: is a directory, expected a file")
    if not path.is_file():  # reading would wait for a writer, and a table is read more than once
        raise UsageError(f"{path}: not a regular file (a pipe or a device): save the data to a file")


def open_input(path, zip_is_compression: bool = True) -> Content:
    """Check that ``path`` is a file this process can read and tell how its content is stored.

    A missing file, a folder, a file that cannot be read, and zstd content without the
    ``zstandard`` package are usage errors. With ``zip_is_compression`` (text and ``.npy``), a zip
    archive must hold exactly one file, which is the content; otherwise (``.npz``) it is the format.
    """
    path = Path(path)
    label = str(path)
    check_exists(path)
    try:
        with open(path, "rb") as f:
            first = f.read(16)
    except OSError as exc:
        raise UsageError(f"{label}: cannot read ({exc.strerror or exc})") from None
    compression = compression_of(first)
    if compression == "zstd":
        try:
            import zstandard  # noqa: F401
        except ImportError:
            raise UsageError(
                f"{label}: zstd-compressed content: reading it needs the zstandard package: pip install 'fmeasure[zstd]'"
            ) from None
    if compression != "zip":
        return Content(path, label, compression)
    if not zip_is_compression:
        return Content(path, label, None)
    try:
        with zipfile.ZipFile(path) as archive:
            names = [info.filename for info in archive.infolist() if not info.is_dir()]
    except (zipfile.BadZipFile, OSError, EOFError) as exc:
        raise DataError(f"{label}: not a readable zip archive ({exc})") from None
    if "[Content_Types].xml" in names:  # what an .xlsx (and any Office Open XML document) holds
        raise DataError(f"{label}: an Excel workbook, not text: save it as CSV")
    if "mimetype" in names and "content.xml" in names:
        raise DataError(f"{label}: an OpenDocument spreadsheet, not text: save it as CSV")
    if names and all(n.endswith(".npy") for n in names):
        raise DataError(f"{label}: a NumPy .npz archive, not text")
    if len(names) != 1:
        raise DataError(f"{label}: a zip archive of {len(names)} files: put the CSV alone in it")
    return Content(path, label, "zip", names[0])


def _line_of(data: bytes, position: int) -> int:
    """The 1-based line of byte ``position`` in ``data`` (lines end with \\n, \\r\\n or \\r)."""
    return len(re.split(rb"\r\n|\r|\n", data[:position]))


def text_head(content: Content):
    """(encoding for pandas, the decoded first HEAD_BYTES of the content, whether that is all of it).

    Content that is not text is a DataError saying what it is: a ``.npy`` array, an Excel
    workbook, a Parquet file, bytes that are not UTF-8 (naming the line), NUL bytes. A UTF-16
    byte-order mark (Excel's "Unicode text") selects UTF-16; a UTF-8 one is skipped.
    """
    label = content.label
    head = content.read(HEAD_BYTES + 1)
    complete = len(head) <= HEAD_BYTES
    head = head[:HEAD_BYTES]
    if head.startswith(b"\x93NUMPY"):
        raise DataError(f"{label}: a .npy array, not text: name it .npy")
    if head.startswith(_OLE2):
        raise DataError(f"{label}: an Excel workbook, not text: save it as CSV")
    if head.startswith(b"PAR1"):
        raise DataError(f"{label}: a Parquet file, not text: save it as CSV")
    encoding = "utf-16" if head.startswith((b"\xff\xfe", b"\xfe\xff")) else "utf-8-sig"
    try:
        text = head.decode(encoding)
    except UnicodeDecodeError as exc:
        if complete or exc.reason != "unexpected end of data":
            raise not_text(label, encoding, head, exc.start) from None
        text = head[: exc.start].decode(encoding)  # a character cut by the end of the head
    if "\x00" in text:
        line = (
            _line_of(head, head.index(b"\x00")) if encoding != "utf-16" else text[: text.index("\x00")].count("\n") + 1
        )
        raise DataError(f"{label}: line {line}: a NUL byte: binary content, not a text table")
    return encoding, text, complete


def not_text(label: str, encoding: str, data: bytes, position: int) -> DataError:
    """The error for undecodable byte ``position`` of ``data`` (the start of the content)."""
    name = "UTF-16" if encoding == "utf-16" else "UTF-8"
    return DataError(
        f"{label}: line {_line_of(data, position)}: not {name} text (byte 0x{data[position]:02x}): save the file as UTF-8"
    )


def first_undecodable(content: Content, encoding: str) -> DataError | None:
    """The error naming the first line of the content that ``encoding`` cannot decode, or None.
    One pass over the file, made when pandas stopped on a byte it could not decode."""
    if encoding == "utf-16":
        data = content.read()
        try:
            data.decode(encoding)
        except UnicodeDecodeError as exc:
            return not_text(content.label, encoding, data, exc.start)
        return None
    try:
        with content.open() as f:
            lines = 0
            for line in f:  # lines end with \n (a file of \r line ends is one line here)
                try:
                    line.decode(encoding if lines == 0 else "utf-8")
                except UnicodeDecodeError as exc:
                    return DataError(
                        f"{content.label}: line {lines + 1}: not UTF-8 text (byte 0x{line[exc.start]:02x}): "
                        "save the file as UTF-8"
                    )
                lines += 1
    except DECOMPRESSION_ERRORS:
        return None
    return None
