"""SPEC 2.3's worked examples through the service (reports by a moderator)."""

from __future__ import annotations

import pytest

from bot.services import Actor, Services, parse_lineup
from tests.services.worked import EXAMPLES, GUILD, set_up

MODERATOR = Actor(1, is_moderator=True)


@pytest.mark.parametrize(("before", "lineup", "changes"), EXAMPLES)
async def test_worked_example(
    services: Services, before: dict[int, float], lineup: str, changes: dict[int, float]
) -> None:
    requests = 0
    for user, target in before.items():
        for text in set_up(user, target):
            requests += 1
            await services.matches.report(
                GUILD, MODERATOR, parse_lineup(text), request_id=str(requests)
            )
    for user, target in before.items():
        member = await services.context.db.read.member(GUILD, user)
        rating = 500.0 if member is None or member.rating is None else member.rating
        assert rating == pytest.approx(target, abs=1e-9)
    result = await services.matches.report(
        GUILD, MODERATOR, parse_lineup(lineup), request_id="example"
    )
    assert result.applied
    got = {p.user_id: p.change for p in result.match.participants}
    assert got == pytest.approx(changes, abs=1e-4)
    for p in result.match.participants:
        assert p.user_id is not None
        assert p.rating_before == pytest.approx(before[p.user_id], abs=1e-9)
