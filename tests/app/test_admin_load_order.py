"""/admin holds the same commands whichever order the cogs load in (issue 25 finding 4: the
cogs that add to /admin no longer need the Admin cog loaded first)."""

from __future__ import annotations

from pathlib import Path

from discord import app_commands

from bot.app.bot import COG_MODULES, LadderBot
from bot.config import Config
from bot.services import Services


async def _admin_commands(tmp_path: Path, modules: tuple[str, ...]) -> list[str]:
    services = await Services.open(str(tmp_path / f"{len(modules)}-{modules[0]}.sqlite3"), Config())
    bot = LadderBot(Config(), services)
    try:
        for module in modules:
            await bot.load_extension(module)
        admin = bot.tree.get_command("admin")
        assert isinstance(admin, app_commands.Group)
        return sorted(command.name for command in admin.commands)
    finally:
        await bot.close()
        await services.close()


async def test_admin_holds_the_same_commands_when_it_loads_last(tmp_path: Path) -> None:
    admin_last = (*(m for m in COG_MODULES if m != "bot.app.cogs.admin"), "bot.app.cogs.admin")
    as_listed = await _admin_commands(tmp_path, COG_MODULES)
    assert {"rank", "modlog", "queue", "lobby", "webhook", "void"} <= set(as_listed)
    assert await _admin_commands(tmp_path, admin_last) == as_listed
