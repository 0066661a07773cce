"""Files the bot attaches stay within Discord's upload limit (SPEC 7; issue 23 finding 3):
compressed when they must be, and a reply naming the command line tool when even that is too
large. The 100,000-match export is built as CSV bytes (the export's own lines, checked
against export_matches on its first matches); the replies go through the fake Discord."""

from __future__ import annotations

import gzip

import numpy as np

from bot.app.uploads import UPLOAD_LIMIT, fitted
from bot.services.matchcsv.export import export_matches
from bot.storage import Match, Participant
from tests.app.fakediscord import FakeDiscord, Member
from tests.app.harness import MOD, BotProcess, Players

MATCHES = 100_000
FIRST_PLAYED = 1_767_225_600.0


def _duels(count: int) -> tuple[list[list[int]], list[list[float]], list[list[float]]]:
    """Players, ratings before and after of `count` duels among 5,000 members, with the
    full-precision ratings a replay stores (they are what compresses least)."""
    rng = np.random.default_rng(23)
    players = (10**17 + rng.integers(0, 5_000, size=(count, 2))).tolist()
    before = 500 + rng.normal(0, 80, size=(count, 2))
    after = before + rng.normal(0, 12, size=(count, 2))
    return players, before.tolist(), after.tolist()


def _match(number: int, players: list[int], before: list[float], after: list[float]) -> Match:
    when = FIRST_PLAYED
    participants = tuple(
        Participant(seat, user_id, None, str(user_id), str(seat + 1), float(1 - seat), 20.0,
                    True, "loss" if seat else "win", before[seat], after[seat])
        for seat, user_id in enumerate(players)
    )  # fmt: skip
    return Match(number, 1, "applied", None, when, when, when, f"r{number}", None, None, None,
                 None, participants)  # fmt: skip


def _export_bytes(count: int) -> bytes:
    """The export of `count` duels, its rows written directly (building 100,000 Match
    objects to export them takes seconds); the first ten are checked to be the very lines
    export_matches writes."""
    players, before, after = _duels(count)
    header, *sample = export_matches(
        _match(n + 1, players[n], before[n], after[n]) for n in range(10)
    ).splitlines(keepends=True)
    time_cell = sample[0].split(",")[1]  # every match is played at the same time
    rows = [
        f"#{n + 1},{time_cell},{seat + 1},{players[n][seat]},{float(1 - seat)!r},20.0,applied,"
        f"{before[n][seat]!r},{after[n][seat]!r}\n"
        for n in range(count)
        for seat in range(2)
    ]
    sample_times = [line.split(",")[1] for line in sample]
    checked = [
        line.replace(cell, time_cell) for line, cell in zip(sample, sample_times, strict=True)
    ]
    assert rows[:20] == checked
    return (header + "".join(rows)).encode()


def test_finding_3_a_100000_match_export_reaches_the_moderator_gzip_compressed() -> None:
    data = _export_bytes(MATCHES)
    sent = fitted(data, "matches.csv", UPLOAD_LIMIT)
    assert len(data) > UPLOAD_LIMIT  # too large as it is …
    assert sent.compressed and sent.filename == "matches.csv.gz" and sent.data is not None
    assert len(sent.data) <= UPLOAD_LIMIT  # … and within the limit compressed
    assert gzip.decompress(sent.data) == data


def test_finding_3_a_small_file_is_sent_as_it_is_and_a_hopeless_one_not_at_all() -> None:
    data = _export_bytes(50)
    assert fitted(data, "m.csv", len(data)).data == data
    hopeless = fitted(data, "m.csv", 64)
    assert hopeless.data is None and hopeless.size == len(data)


def _with_limit(fake: FakeDiscord, limit: int) -> int:
    before = fake.attachment_size_limit
    fake.attachment_size_limit = limit
    return before


def test_finding_3_admin_export_and_history_are_compressed_or_name_the_command_line(
    fake: FakeDiscord, bot: BotProcess, players: Players
) -> None:
    first, second = players.take(2)
    for _ in range(12):  # a history long enough for gzip to make it smaller
        fake.slash(MOD, "report duel", winner=first, loser=second).reply()
    exported = fake.slash(MOD, "admin export").reply()
    (plain,) = exported.files
    shown = fake.slash(first, "history").reply()
    assert shown.files, shown
    (history,) = shown.files
    original = _with_limit(fake, len(plain.data) - 1)
    try:
        packed = fake.slash(MOD, "admin export").reply()
        (file,) = packed.files
        assert file.filename == plain.filename + ".gz" and len(file.data) < len(plain.data)
        assert gzip.decompress(file.data) == plain.data
        assert "gzip-compressed" in (packed.content or "")
        fake.attachment_size_limit = 40
        refused = fake.slash(MOD, "admin export").reply()
        assert not refused.files
        assert "`ladderbot export --guild " in (refused.content or "")
        fake.attachment_size_limit = len(history.data) - 1
        (packed_history,) = fake.slash(first, "history").reply().files
        assert gzip.decompress(packed_history.data) == history.data
        fake.attachment_size_limit = 40
        too_large = fake.slash(first, "history").reply()
        assert not too_large.files and "`ladderbot gr --guild " in (too_large.content or "")
    finally:
        fake.attachment_size_limit = original


def test_finding_4_history_escapes_the_display_name(fake: FakeDiscord, bot: BotProcess) -> None:
    marked = Member(2_999, "**bold**_x_ @everyone")
    reply = fake.slash(MOD, "history", member=marked).reply()
    content = reply.content or ""
    assert "\\*\\*bold\\*\\*\\_x\\_" in content and "@everyone" not in content
