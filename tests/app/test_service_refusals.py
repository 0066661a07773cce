"""The services' refusals and the notices of queue and lobby messages in every shipped
language (SPEC 13): each is a template the front end translates, its English (str, what the
command line prints) unchanged, its counts in the language's plural forms."""

from __future__ import annotations

import ast
from dataclasses import replace
from pathlib import Path

import pytest

from bot.app.queue_views import queue_embed
from bot.config import GUILD_SETTING_RULES, GuildSettings, KeyedSettingError
from bot.present.language import SHIPPED, refusal_text, words
from bot.services import Actor, UserError
from bot.services.core import must_moderate
from bot.services.errors import N_, Duration, Notice
from bot.services.lineup import ID_RULE, MAX_ID
from bot.services.match_rules import check_state
from bot.services.matchcsv.format import LABEL_LENGTH, LABEL_RULE
from bot.services.queue_rules import MAX_MAPS, parse_maps
from bot.services.season_rules import NAME_LENGTH, NAME_RULE
from bot.services.settings import setting_refusal
from tests.app.test_queue_views import queue

SERVICES = Path(__file__).resolve().parents[2] / "bot" / "services"


def _refused(call: object, *args: object) -> UserError:
    with pytest.raises(UserError) as refused:
        call(*args)  # type: ignore[operator]
    return refused.value


def test_a_moderator_only_refusal_names_its_use_case_in_the_language() -> None:
    refused = _refused(must_moderate, Actor(1), N_("void matches"))
    assert str(refused) == "only moderators (Manage Server) can void matches"
    assert refusal_text(refused, words("de")) == (
        "nur Moderatoren (Server verwalten) können Matches annullieren"
    )
    assert refusal_text(refused, words("ru")) == (
        "только модераторы (Управлять сервером) могут аннулировать матчи"
    )


def test_a_match_state_refusal_is_one_translated_sentence() -> None:
    refused = _refused(check_state, "confirm", 7, "void")
    assert str(refused) == (
        "match #7 is void; only a pending or disputed match can be confirmed "
        "(report it again if it happened)"
    )
    assert refusal_text(refused, words("de")).startswith("Match #7 ist annulliert; nur ein")


@pytest.mark.parametrize(
    ("count", "russian"), [(26, "26 карт"), (32, "32 карты"), (41, "41 карта")]
)
def test_a_count_in_a_refusal_takes_the_languages_plural_form(count: int, russian: str) -> None:
    refused = _refused(parse_maps, ",".join(f"m{n}" for n in range(count)))
    assert str(refused) == f"{count} maps: a queue has at most {MAX_MAPS}"
    assert refusal_text(refused, words("ru")) == (
        f"{russian}: в очереди может быть не больше {MAX_MAPS}"
    )
    assert refusal_text(refused, words("de")) == (
        f"{count} Maps: eine Queue hat höchstens {MAX_MAPS}"
    )


def test_a_notice_is_stored_and_shown_in_the_servers_language() -> None:
    left = Notice(N_("{members} left the ladder and the queue"), members="<@2>")
    notice = Notice(
        N_("{removed}; their party ({mates}) left with them"), removed=left, mates="<@1>"
    )
    shown = Notice.load(notice.stored())
    assert str(shown) == "<@2> left the ladder and the queue; their party (<@1>) left with them"
    assert refusal_text(shown, words("ru")).startswith(
        "<@2>: выход из ладдера и очереди; пати (<@1>) вышла"
    )


def test_a_queue_message_shows_its_notice_in_the_servers_language() -> None:
    expired = Notice(
        N_("{members} left the queue after waiting {wait}"),
        members="<@1>, <@2>",
        wait=Duration(2 * 3600 + 1800),
    )
    assert str(expired) == "<@1>, <@2> left the queue after waiting 2 hr 30 min"
    shown = queue_embed(replace(queue(waiting=2), notice=expired.stored()), said=words("de"))
    assert "<@1>, <@2>: Queue nach 2 Std., 30 Min. Wartezeit verlassen" in str(shown.description)
    assert "· Ready-Check 1 Min. · raus nach 1 Std.\n" in str(shown.description)  # 60 s, 60 min


@pytest.mark.parametrize(
    ("language", "wait"),
    [("de", "noch 12 Min. nicht"), ("ru", "ещё 12 мин"), ("fr", "encore 12\u00a0min")],
)
def test_a_wait_in_a_refusal_is_written_in_the_language(language: str, wait: str) -> None:
    refused = UserError(
        N_("you missed a ready check and cannot queue for {wait} more"), wait=Duration(11 * 60 + 5)
    )
    assert str(refused) == "you missed a ready check and cannot queue for 12 min more"
    assert wait in refusal_text(refused, words(language))


@pytest.mark.parametrize(
    ("seconds", "english", "german"),
    [
        (44.2, "45 sec", "45 Sek."),
        (3600, "1 hr", "1 Std."),
        (3 * 3600 + 300, "3 hr 5 min", "3 Std., 5 Min."),
    ],
)
def test_a_wait_rounds_up_to_its_unit(seconds: float, english: str, german: str) -> None:
    assert (str(Duration(seconds)), words("de").duration(seconds)) == (english, german)


def test_a_notice_stored_before_notices_were_templates_shows_as_it_is() -> None:
    assert refusal_text(Notice.load("<@1> left the queue"), words("fr")) == "<@1> left the queue"


@pytest.mark.parametrize("language", SHIPPED)
def test_the_rules_written_out_agree_with_their_bounds(language: str) -> None:
    """ID_RULE, NAME_RULE and LABEL_RULE are literal catalog messages: a changed bound, in
    the code or in a translation, fails here."""
    said = words(language)
    for rule, bound in ((ID_RULE, MAX_ID), (NAME_RULE, NAME_LENGTH), (LABEL_RULE, LABEL_LENGTH)):
        assert f" {bound} " in f" {rule} "
        assert str(bound) in said.gettext(rule)


@pytest.mark.parametrize(
    ("key", "value"),
    [*((key, "bad") for key in GUILD_SETTING_RULES), ("t", 1e12), ("min_games", 5000), ("nope", 1)],
)
def test_a_refused_setting_says_bot_configs_rule_in_the_members_language(
    key: str, value: object
) -> None:
    with pytest.raises(KeyedSettingError) as refused:
        GuildSettings().changed({key: value})
    refusal = setting_refusal(key, {key: value})
    assert str(refusal) == f"setting {refused.value.key}: {refused.value}"
    assert refusal_text(refusal, words("de")).startswith(f"Einstellung {key}: ")
    assert refusal_text(refusal, words("de")) != f"Einstellung {key}: {refused.value}"


def _templates(tree: ast.Module) -> set[str]:
    """Module-level names bound to an N_ call, or to a dict whose values all are."""

    def marked(node: ast.expr | None) -> bool:
        return isinstance(node, ast.Call) and getattr(node.func, "id", None) == "N_"

    names = set()
    for statement in tree.body:
        if isinstance(statement, ast.Assign | ast.AnnAssign):
            value = statement.value
            targets = statement.targets if isinstance(statement, ast.Assign) else [statement.target]
            if marked(value) or (
                isinstance(value, ast.Dict) and all(marked(v) for v in value.values)
            ):
                names |= {t.id for t in targets if isinstance(t, ast.Name)}
    return names


def test_every_refusal_of_the_services_is_a_template() -> None:
    """A UserError raised with a finished sentence would stay English in every language: its
    first argument is an N_ call, or a module constant of N_-marked templates."""
    finished = []
    for path in sorted(SERVICES.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        constants = _templates(tree)
        for node in ast.walk(tree):
            if not (isinstance(node, ast.Call) and getattr(node.func, "id", None) == "UserError"):
                continue
            first = node.args[0]
            base = first.value if isinstance(first, ast.Subscript) else first
            if isinstance(first, ast.Call) and getattr(first.func, "id", None) == "N_":
                continue
            if isinstance(base, ast.Name) and base.id in constants:
                continue
            finished.append(f"{path.relative_to(SERVICES)}:{node.lineno}: {ast.unparse(first)}")
    assert not finished, "\n".join(finished)
