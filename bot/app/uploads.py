"""Files the bot attaches, kept within Discord's upload limit (SPEC 7): a file that would be
larger is sent gzip-compressed, and one too large even so is not sent: the reply says how
large it is and which command line tool has no limit."""

from __future__ import annotations

import asyncio
import gzip
import io
from dataclasses import dataclass
from typing import Any, Final

import discord

from bot.present.language import N_, Words

UPLOAD_LIMIT: Final = 10 * 1024 * 1024
"""Discord's default upload limit, 10 MiB (a server's boost may allow more; this is what
every server allows)."""
MIB: Final = 1024 * 1024


@dataclass(frozen=True, slots=True)
class Fitted:
    """A file as it is sent: its bytes and name, or None when too large even compressed."""

    data: bytes | None
    filename: str
    size: int
    """The size of the file before compression."""
    compressed: bool


def upload_limit(interaction: discord.Interaction[Any]) -> int:
    """The largest file this interaction's reply may carry: Discord's default limit, or the
    server's when that is lower (Discord sends it with every interaction)."""
    return min(UPLOAD_LIMIT, interaction.filesize_limit)


def fitted(data: bytes, filename: str, limit: int) -> Fitted:
    """`data` as it is when it fits in `limit` bytes, else gzip-compressed (`.gz` added to
    the name), else none."""
    if len(data) <= limit:
        return Fitted(data, filename, len(data), compressed=False)
    packed = gzip.compress(data, compresslevel=6, mtime=0)
    if len(packed) <= limit:
        return Fitted(packed, f"{filename}.gz", len(data), compressed=True)
    return Fitted(None, f"{filename}.gz", len(data), compressed=True)


def size_text(size: int, said: Words) -> str:
    """A file size in MiB, one decimal (10.0 MiB is Discord's limit)."""
    return said.gettext(N_("{size} MiB"), size=said.decimal(size / MIB, 1))


async def send_file(
    interaction: discord.Interaction[Any],
    data: bytes,
    filename: str,
    content: str,
    tool: str,
    said: Words,
) -> None:
    """Answer the deferred interaction with `content` and the file, compressed if it must
    be; a file too large even compressed is left out and the reply names `tool` (a
    `ladderbot` command that has no limit) instead. Compressing runs off the event loop;
    the notes on the file's size are in `said`'s language."""
    limit = upload_limit(interaction)
    found = await asyncio.to_thread(fitted, data, filename, limit)
    size, most = size_text(found.size, said), size_text(limit, said)
    if found.data is None:
        too_large = said.gettext(
            N_(
                "The file is {size}, too large for Discord even gzip-compressed (at most "
                "{limit}). On the bot's machine, `{tool}` gives it with no limit."
            ),
            size=size,
            limit=most,
            tool=tool,
        )
        await interaction.edit_original_response(content=f"{content}\n{too_large}")
        return
    if found.compressed:
        content += "\n" + said.gettext(
            N_(
                "The file is gzip-compressed ({size} unpacked, over Discord's {limit} upload "
                "limit): any unzip tool opens it."
            ),
            size=size,
            limit=most,
        )
    file = discord.File(io.BytesIO(found.data), filename=found.filename)
    await interaction.edit_original_response(content=content, attachments=[file])
