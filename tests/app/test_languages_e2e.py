"""Languages end to end (SPEC 13, issue 26): a refusal answers each member in their client's
language; /rating (public) speaks the server's language (auto: its preferred locale); with
language = fr the live leaderboard and a queue message turn French, while an ephemeral answer
to a Russian client stays Russian. One fake Discord and one bot process of its own: the
server's language changes here, which the session's shared bot must not see."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.app.fakediscord import GENERAL, GUILD_ID, LIVE, Event, FakeDiscord, Member
from tests.app.harness import MOD, BotProcess, running, serving, write_config

GERMAN = Member(7_100_001, "hans", locale="de")
BRAZILIAN = Member(7_100_002, "joana", locale="pt-BR")
RUSSIAN = Member(7_100_003, "olga", locale="ru")
ANN = Member(7_100_004, "ann")
BOB = Member(7_100_005, "bob")
NO_MATCH = 999_999


@pytest.fixture(scope="module", name="fake")
def languages_fake() -> Iterator[FakeDiscord]:
    server = FakeDiscord([MOD, GERMAN, BRAZILIAN, RUSSIAN, ANN, BOB])
    server.guild_locales[GUILD_ID] = "es-ES"  # the server's preferred locale
    yield from serving(server)


@pytest.fixture(scope="module", name="bot")
def languages_bot(
    fake: FakeDiscord, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[BotProcess]:
    yield from running(BotProcess(fake, write_config(tmp_path_factory.mktemp("languages"))))


def _title(event: Event) -> str:
    return str((event.payload.get("embeds") or [{}])[0].get("title", ""))


def _shown(fake: FakeDiscord, message_id: int, starts: str, after: int) -> Event:
    """The bot's post or edit of that message whose embed title starts so."""
    return fake.wait_for(
        lambda e: (
            e.kind in ("message_create", "message_edit")
            and e.message_id == message_id
            and _title(e).startswith(starts)
        ),
        30,
        after,
    )


def test_a_refusal_answers_in_the_members_client_language(
    fake: FakeDiscord, bot: BotProcess
) -> None:
    german = fake.slash(GERMAN, "match show", id=NO_MATCH).reply()
    assert german.ephemeral
    assert german.content == (
        f"auf diesem Server gibt es kein Match #{NO_MATCH}; die Nummern zeigt /match list"
    )
    brazilian = fake.slash(BRAZILIAN, "match show", id=NO_MATCH).reply()
    assert brazilian.ephemeral
    assert brazilian.content == (
        f"não existe a partida #{NO_MATCH} neste servidor; veja os números em /match list"
    )


def test_public_replies_follow_the_servers_language_and_its_change(
    fake: FakeDiscord, bot: BotProcess
) -> None:
    fake.slash(MOD, "report duel", winner=ANN, loser=BOB).reply()
    # language auto: the server's preferred locale (es-ES), whoever asks
    rating = fake.slash(GERMAN, "rating", member=ANN).reply()
    assert not rating.ephemeral
    (card,) = rating.embeds
    assert card["title"] == "ann — puntuación"
    assert [f["name"] for f in card["fields"]][:3] == ["Puntuación de liga", "Puesto", "Historial"]
    assert "1V 0E 0D (1 partida esta temporada)" in [f["value"] for f in card["fields"]]

    mark = fake.mark()
    assert fake.slash(MOD, "admin channel", channel=LIVE).reply().ephemeral
    board = fake.wait_for(
        lambda e: e.kind == "message_create" and _title(e).startswith("Clasificación en directo"),
        30,
        mark,
    )
    assert (
        fake.slash(MOD, "admin queue create", name="duo", channel=GENERAL, size=2).reply().ephemeral
    )
    queue = fake.wait_for(
        lambda e: e.kind == "message_create" and _title(e).startswith("Cola duo — 0/2"), 30, mark
    )

    mark = fake.mark()
    changed = fake.slash(MOD, "admin settings", language="fr").reply()
    assert "language = fr" in changed.embeds[0]["description"]
    french_board = _shown(fake, int(board.message_id or 0), "Classement en direct", mark)
    assert french_board.payload["embeds"][0]["title"] == "Classement en direct — par cote ladder"
    assert "2 joueurs" in french_board.payload["embeds"][0]["footer"]["text"]
    french_queue = _shown(fake, int(queue.message_id or 0), "File duo — 0/2", mark)
    embed = french_queue.payload["embeds"][0]
    assert embed["footer"]["text"] == (
        "Rejoins ou quitte avec les boutons, ou avec /queue join et /queue leave."
    )
    labels = [b["label"] for row in french_queue.payload["components"] for b in row["components"]]
    assert labels == ["Rejoindre", "Quitter"]

    join = french_queue.payload["components"][0]["components"][0]["custom_id"]
    joined = fake.click(RUSSIAN, int(queue.message_id or 0), join).reply()
    assert joined.ephemeral and joined.content == "Ты в очереди duo: место 1 из 2."
    russian = fake.slash(RUSSIAN, "match show", id=NO_MATCH).reply()
    assert russian.ephemeral
    assert russian.content == f"на этом сервере нет матча №{NO_MATCH}; номера есть в /match list"
    rating = fake.slash(RUSSIAN, "rating", member=ANN).reply()
    assert rating.embeds[0]["title"] == "ann — cote"  # public: the server's French

    # /history is public too (French); /queue list answers the Russian client in Russian
    history = fake.slash(GERMAN, "history", member=ANN).reply()
    assert not history.ephemeral
    assert (history.content or "").startswith(
        "Parties de ann : une partie par ligne, la plus récente"
    )
    assert [file.filename for file in history.files] == [f"history-{ANN.id}.txt"]
    listed = fake.slash(RUSSIAN, "queue list").reply()
    assert listed.ephemeral
    assert "(2 команды по 1 · balance) в <#" in (listed.content or "")
    assert (listed.content or "").endswith(": 1/2 · твоё место: 1.")
