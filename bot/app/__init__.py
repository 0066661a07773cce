"""The Discord front end (discord.py): cogs, embeds, views; started through bot.app.run."""
