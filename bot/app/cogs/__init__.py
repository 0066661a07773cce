"""One cog per feature; each module's `setup` adds its cog to the bot."""
