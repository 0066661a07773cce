"""The schema: one numbered migration history for both engines.

Each migration is a list of statements written with a few placeholders the engine's dialect
fills ({bigint}: 64-bit integers, {real}: doubles, {bool}, {without_rowid}); a statement
"@performances_stale" stands for the dialect's trigger, "@match_ids_sequence" for its match id
source (PostgreSQL only), "@fill_log_chunks" for Python that fills a new table from the
others, "@compare_listed_checks" for the dialect's rewrite of some CHECKs. A database
records how many migrations it has applied (SQLite: PRAGMA user_version, as the first
versions did; PostgreSQL: table schema_version), and opening it applies the rest, each in
one transaction.
"""

from __future__ import annotations

from typing import Final

from bot.storage import logchunks
from bot.storage.engine import DatabaseUnavailable, Dialect, Session

FILL_LOG_CHUNKS: Final = "@fill_log_chunks"
"""A migration step that is no statement: the log's chunks made from the rows."""
COMPARE_LISTED_CHECKS: Final = "@compare_listed_checks"
"""A migration step that is no statement: LISTED_CHECKS rewritten (Dialect)."""

MIGRATIONS: Final[tuple[tuple[str, ...], ...]] = (
    # 1: the initial schema.
    (
        """
        CREATE TABLE guilds (
            guild_id {bigint} PRIMARY KEY,
            t {real} NOT NULL,
            game_mult {real} NOT NULL,
            max_game_length {real} NOT NULL,
            initial_rating {real} NOT NULL,
            variant TEXT NOT NULL,
            confirm TEXT NOT NULL,
            auto_confirm_hours {real} NOT NULL,
            min_games INTEGER NOT NULL,
            live_channel_id {bigint},
            live_message_id {bigint},
            live_edited_at {real},
            changed_at {real}
        )
        """,
        """
        CREATE TABLE members (
            guild_id {bigint} NOT NULL REFERENCES guilds (guild_id),
            user_id {bigint} NOT NULL,
            name TEXT NOT NULL,
            is_bot {bool} NOT NULL DEFAULT {false},
            enabled {bool} NOT NULL DEFAULT {true},
            rating {real},
            games INTEGER NOT NULL DEFAULT 0,
            wins INTEGER NOT NULL DEFAULT 0,
            draws INTEGER NOT NULL DEFAULT 0,
            losses INTEGER NOT NULL DEFAULT 0,
            PRIMARY KEY (guild_id, user_id)
        )
        """,
        """
        CREATE TABLE matches (
            id {bigint} PRIMARY KEY,
            guild_id {bigint} NOT NULL REFERENCES guilds (guild_id),
            status TEXT NOT NULL CHECK (status IN ('pending', 'disputed', 'applied', 'void')),
            reporter_id {bigint},
            created_at {real} NOT NULL,
            played_at {real} NOT NULL,
            applied_at {real},
            request_id TEXT NOT NULL,
            channel_id {bigint},
            message_id {bigint},
            void_reason TEXT,
            disputed_by {bigint},
            UNIQUE (guild_id, request_id),
            CHECK ((status = 'applied') <= (applied_at IS NOT NULL))
        )
        """,
        "CREATE INDEX matches_log ON matches (guild_id, status, applied_at, id)",
        """
        CREATE TABLE participants (
            match_id {bigint} NOT NULL REFERENCES matches (id) ON DELETE CASCADE,
            position INTEGER NOT NULL,
            user_id {bigint},
            guest TEXT,
            side TEXT NOT NULL,
            score {real} NOT NULL CHECK (score >= 0),
            minutes {real} NOT NULL CHECK (minutes > 0 AND minutes <= 1440),
            enabled {bool} NOT NULL,
            outcome TEXT CHECK (outcome IN ('win', 'draw', 'loss')),
            rating_before {real},
            rating_after {real},
            PRIMARY KEY (match_id, position),
            CHECK ((user_id IS NULL) <> (guest IS NULL)),
            CHECK (enabled = (outcome IS NOT NULL))
        ) {without_rowid}
        """,
        "CREATE INDEX participants_user ON participants (user_id, match_id)",
    ),
    # 2: performances, a cache derived from the log (see performances.py): a member's rows
    # go whenever their rating is rewritten.
    (
        """
        CREATE TABLE performances (
            guild_id {bigint} NOT NULL,
            user_id {bigint} NOT NULL,
            measure TEXT NOT NULL,
            value {real},
            up {real},
            down {real},
            PRIMARY KEY (guild_id, user_id, measure)
        ) {without_rowid}
        """,
        "@performances_stale",
    ),
    # 3: provisional_games, a guild setting (SPEC 9.5).
    ("ALTER TABLE guilds ADD COLUMN provisional_games INTEGER NOT NULL DEFAULT 5",),
    # 4: seasons (SPEC 9.1): each start is an entry of the log (see seasons.py), and the
    # closing standings of every closed season.
    (
        """
        CREATE TABLE seasons (
            guild_id {bigint} NOT NULL REFERENCES guilds (guild_id),
            number INTEGER NOT NULL,
            name TEXT NOT NULL,
            carry {real} NOT NULL CHECK (carry >= 0 AND carry <= 1),
            starts_at {real} NOT NULL,
            created_at {real} NOT NULL,
            actor_id {bigint},
            PRIMARY KEY (guild_id, number),
            UNIQUE (guild_id, name)
        )
        """,
        """
        CREATE TABLE season_standings (
            guild_id {bigint} NOT NULL,
            number INTEGER NOT NULL,
            user_id {bigint} NOT NULL,
            rating {real} NOT NULL,
            games INTEGER NOT NULL,
            wins INTEGER NOT NULL,
            draws INTEGER NOT NULL,
            losses INTEGER NOT NULL,
            PRIMARY KEY (guild_id, number, user_id),
            FOREIGN KEY (guild_id, number) REFERENCES seasons (guild_id, number)
        ) {without_rowid}
        """,
    ),
    # 5: rank roles (SPEC 9.2), inactivity (9.3) and the mod log channel (9.4). Who holds a
    # rank role is Discord's to know (member.roles), never stored here.
    (
        "ALTER TABLE guilds ADD COLUMN inactive_days INTEGER NOT NULL DEFAULT 0",
        "ALTER TABLE guilds ADD COLUMN rank_margin {real} NOT NULL DEFAULT 25",
        "ALTER TABLE guilds ADD COLUMN modlog_channel_id {bigint}",
        """
        CREATE TABLE rank_roles (
            guild_id {bigint} NOT NULL REFERENCES guilds (guild_id),
            role_id {bigint} NOT NULL,
            min_rating {real} NOT NULL,
            PRIMARY KEY (guild_id, role_id)
        ) {without_rowid}
        """,
        # /admin edit keeps each replaced lineup (SPEC 9.4), as lineup text of SPEC 4.
        """
        CREATE TABLE match_edits (
            match_id {bigint} NOT NULL REFERENCES matches (id) ON DELETE CASCADE,
            edited_at {real} NOT NULL,
            editor_id {bigint},
            old_lineup TEXT NOT NULL,
            PRIMARY KEY (match_id, edited_at)
        ) {without_rowid}
        """,
    ),
    # 6: import keys (SPEC 8.3): an imported match keeps its CSV `match` label, unique in its
    # guild. Matches imported before keep theirs (request id `import:<32 hex>:<label>`; of
    # a label imported twice, the first match).
    (
        "ALTER TABLE matches ADD COLUMN import_key TEXT",
        """
        UPDATE matches SET import_key = substr(request_id, 41)
        WHERE request_id LIKE 'import:%' AND id = (
            SELECT min(first.id) FROM matches first WHERE first.guild_id = matches.guild_id
            AND first.request_id LIKE 'import:%'
            AND substr(first.request_id, 41) = substr(matches.request_id, 41)
        )
        """,
        "CREATE UNIQUE INDEX matches_import_key ON matches (guild_id, import_key)",
    ),
    # 7: on PostgreSQL, match ids from a sequence instead of max + 1 under a lock that
    # serialized every report of every guild (see Dialect.next_match_id).
    ("@match_ids_sequence",),
    # 8: room in participants' pages for a new version of each row, so that a replay
    # rewriting every rating updates rows in place (PostgreSQL's HOT updates: no index
    # entries written; 2.7x faster measured on 800,000 rows). SQLite updates in place.
    ("@participants_room",),
    # 9: matchmaking queues (SPEC 10): queues and their waiting members, lobbies and their
    # players, no-show penalties, and the two guild settings. Queues and lobbies are
    # numbered per guild (their numbers are taken under the guild's write lock); `version`
    # counts a row's changes and `shown_version` the one its Discord message shows. An open
    # lobby's players are marked `open`: a member is in at most one open lobby (the unique
    # index says so). A lobby remembers the one match its result recorded.
    (
        "ALTER TABLE guilds ADD COLUMN no_show_minutes INTEGER NOT NULL DEFAULT 0",
        "ALTER TABLE guilds ADD COLUMN lobby_hours {real} NOT NULL DEFAULT 3",
        """
        CREATE TABLE queues (
            guild_id {bigint} NOT NULL REFERENCES guilds (guild_id),
            queue_id INTEGER NOT NULL,
            name TEXT NOT NULL,
            channel_id {bigint} NOT NULL,
            message_id {bigint},
            size INTEGER NOT NULL CHECK (size >= 2 AND size <= 32),
            format TEXT NOT NULL CHECK (format IN ('teams', 'ffa')),
            teams INTEGER NOT NULL CHECK (teams >= 2 AND teams <= 4),
            mode TEXT NOT NULL CHECK (mode IN ('balance', 'captains', 'random')),
            ready_seconds INTEGER NOT NULL,
            expire_minutes INTEGER NOT NULL,
            maps TEXT NOT NULL,
            pick_order TEXT NOT NULL,
            previous_map TEXT,
            notice TEXT,
            version INTEGER NOT NULL DEFAULT 1,
            shown_version INTEGER NOT NULL DEFAULT 0,
            PRIMARY KEY (guild_id, queue_id),
            UNIQUE (guild_id, name)
        )
        """,
        """
        CREATE TABLE queue_members (
            guild_id {bigint} NOT NULL,
            queue_id INTEGER NOT NULL,
            user_id {bigint} NOT NULL,
            place INTEGER NOT NULL,
            joined_at {real} NOT NULL,
            PRIMARY KEY (guild_id, queue_id, user_id),
            FOREIGN KEY (guild_id, queue_id) REFERENCES queues (guild_id, queue_id)
                ON DELETE CASCADE
        ) {without_rowid}
        """,
        "CREATE INDEX queue_members_user ON queue_members (guild_id, user_id)",
        """
        CREATE TABLE lobbies (
            guild_id {bigint} NOT NULL REFERENCES guilds (guild_id),
            lobby_id INTEGER NOT NULL,
            queue_id INTEGER NOT NULL,
            queue_name TEXT NOT NULL,
            channel_id {bigint} NOT NULL,
            message_id {bigint},
            state TEXT NOT NULL CHECK (state IN
                ('ready', 'picking', 'playing', 'reported', 'cancelled', 'dissolved')),
            format TEXT NOT NULL,
            teams INTEGER NOT NULL,
            mode TEXT NOT NULL,
            pick_order TEXT NOT NULL,
            created_at {real} NOT NULL,
            ready_deadline {real},
            pick_deadline {real},
            close_deadline {real} NOT NULL,
            map TEXT,
            seed {bigint},
            match_id {bigint} REFERENCES matches (id),
            closed_at {real},
            notice TEXT,
            version INTEGER NOT NULL DEFAULT 1,
            shown_version INTEGER NOT NULL DEFAULT 0,
            PRIMARY KEY (guild_id, lobby_id),
            UNIQUE (match_id)
        )
        """,
        "CREATE INDEX lobbies_open ON lobbies (state, close_deadline)",
        """
        CREATE TABLE lobby_players (
            guild_id {bigint} NOT NULL,
            lobby_id INTEGER NOT NULL,
            user_id {bigint} NOT NULL,
            position INTEGER NOT NULL,
            rating {real} NOT NULL,
            ready {bool} NOT NULL DEFAULT {false},
            team INTEGER,
            captain {bool} NOT NULL DEFAULT {false},
            pick INTEGER,
            open {bool} NOT NULL,
            PRIMARY KEY (guild_id, lobby_id, user_id),
            FOREIGN KEY (guild_id, lobby_id) REFERENCES lobbies (guild_id, lobby_id)
        ) {without_rowid}
        """,
        "CREATE UNIQUE INDEX lobby_players_open ON lobby_players (guild_id, user_id) "
        "WHERE open = {true}",
        """
        CREATE TABLE queue_penalties (
            guild_id {bigint} NOT NULL REFERENCES guilds (guild_id),
            user_id {bigint} NOT NULL,
            until {real} NOT NULL,
            PRIMARY KEY (guild_id, user_id)
        ) {without_rowid}
        """,
    ),
    # 10: the web pages and read API (SPEC 11): the guild setting `web` (off: the guild is
    # not shown), and the matches of a guild by id, newest first (the pages' match list).
    (
        "ALTER TABLE guilds ADD COLUMN web {bool} NOT NULL DEFAULT {false}",
        "CREATE INDEX matches_guild ON matches (guild_id, id)",
    ),
    # 11: the change feed (SPEC 8.7): one row per committed change, numbered in commit order
    # per guild, naming the process that made it (bot.storage.changes).
    (
        """
        CREATE TABLE changes (
            seq {serial_key},
            guild_id {bigint} NOT NULL,
            origin TEXT NOT NULL,
            kind TEXT NOT NULL,
            match_id {bigint},
            actor_id {bigint},
            everyone {bool} NOT NULL,
            member_ids TEXT NOT NULL,
            detail TEXT NOT NULL,
            created_at {real} NOT NULL
        )
        """,
        "CREATE INDEX changes_guild ON changes (guild_id, created_at)",
        "CREATE INDEX changes_created ON changes (created_at)",
    ),
    # 12: queue and lobby numbers are never reused in a guild, even after a delete (SPEC
    # 10.1): the guild keeps the last number it gave each. An existing guild's counters start
    # at the largest number it still knows of: its queues, and the queues its lobbies name
    # (a deleted queue's lobbies stay).
    (
        "ALTER TABLE guilds ADD COLUMN last_queue_id INTEGER NOT NULL DEFAULT 0",
        "ALTER TABLE guilds ADD COLUMN last_lobby_id INTEGER NOT NULL DEFAULT 0",
        """
        UPDATE guilds SET
            last_queue_id = coalesce((SELECT max(numbers.queue_id) FROM (
                SELECT guild_id, queue_id FROM queues
                UNION ALL SELECT guild_id, queue_id FROM lobbies
            ) AS numbers WHERE numbers.guild_id = guilds.guild_id), 0),
            last_lobby_id = coalesce((SELECT max(l.lobby_id) FROM lobbies l
                WHERE l.guild_id = guilds.guild_id), 0)
        """,
    ),
    # 13: webhooks (SPEC 14): each guild's webhooks (a removed one stays as a row with
    # removed_at, so its number is never given again), and the outbox: one row per event
    # and webhook, written in the transaction of the change it reports, holding the whole
    # body (a snapshot of the event's facts), deleted once delivered or dropped.
    (
        """
        CREATE TABLE webhooks (
            guild_id {bigint} NOT NULL REFERENCES guilds (guild_id),
            webhook_id INTEGER NOT NULL,
            url TEXT NOT NULL,
            secret TEXT NOT NULL,
            events TEXT NOT NULL,
            created_at {real} NOT NULL,
            removed_at {real},
            last_status TEXT,
            last_at {real},
            PRIMARY KEY (guild_id, webhook_id)
        )
        """,
        """
        CREATE TABLE webhook_outbox (
            seq {serial_key},
            guild_id {bigint} NOT NULL,
            webhook_id INTEGER NOT NULL,
            delivery_id TEXT NOT NULL,
            event TEXT NOT NULL,
            body TEXT NOT NULL,
            created_at {real} NOT NULL,
            attempts INTEGER NOT NULL DEFAULT 0,
            next_at {real} NOT NULL,
            FOREIGN KEY (guild_id, webhook_id) REFERENCES webhooks (guild_id, webhook_id)
        )
        """,
        "CREATE INDEX webhook_outbox_order ON webhook_outbox (guild_id, webhook_id, seq)",
    ),
    # 14: rating-range matchmaking (SPEC 10.5): a queue pops only with members within
    # `rating_range + widen * minutes waited` Elo of its longest-waiting member (0: off).
    (
        "ALTER TABLE queues ADD COLUMN rating_range INTEGER NOT NULL DEFAULT 0",
        "ALTER TABLE queues ADD COLUMN widen INTEGER NOT NULL DEFAULT 0",
    ),
    # 15: the columnar copy of each guild's log (bot.storage.logchunks, issue 29): chunks of
    # whole matches' entries, each keyed by its first and last match's log key, written
    # with the rows in every transaction that changes the log; filled here from the rows.
    (
        """
        CREATE TABLE log_chunks (
            guild_id {bigint} NOT NULL REFERENCES guilds (guild_id),
            first_at {real} NOT NULL,
            first_id {bigint} NOT NULL,
            last_at {real} NOT NULL,
            last_id {bigint} NOT NULL,
            entries INTEGER NOT NULL CHECK (entries > 0),
            data {blob} NOT NULL,
            PRIMARY KEY (guild_id, first_at, first_id)
        )
        """,
        "@log_chunks_storage",
        FILL_LOG_CHUNKS,
    ),
    # 16: the guild's name as Discord shows it, for its web pages (SPEC 11.2; NULL until the
    # bot has seen the guild).
    ("ALTER TABLE guilds ADD COLUMN name TEXT",),
    # 17: parties (SPEC 10.5): a queue's `party_max`; each party (named by its leader) with
    # the time it last waited or changed (an hour idle ends it), its members (a member is in
    # one party at most), its open invitations; and the party a lobby's player queued with.
    (
        "ALTER TABLE queues ADD COLUMN party_max INTEGER NOT NULL DEFAULT 1",
        "ALTER TABLE lobby_players ADD COLUMN party {bigint}",
        """
        CREATE TABLE parties (
            guild_id {bigint} NOT NULL REFERENCES guilds (guild_id),
            leader_id {bigint} NOT NULL,
            active_at {real} NOT NULL,
            PRIMARY KEY (guild_id, leader_id)
        ) {without_rowid}
        """,
        """
        CREATE TABLE party_members (
            guild_id {bigint} NOT NULL,
            user_id {bigint} NOT NULL,
            leader_id {bigint} NOT NULL,
            joined_at {real} NOT NULL,
            PRIMARY KEY (guild_id, user_id),
            FOREIGN KEY (guild_id, leader_id) REFERENCES parties (guild_id, leader_id)
                ON DELETE CASCADE
        ) {without_rowid}
        """,
        "CREATE INDEX party_members_leader ON party_members (guild_id, leader_id)",
        """
        CREATE TABLE party_invites (
            guild_id {bigint} NOT NULL REFERENCES guilds (guild_id),
            leader_id {bigint} NOT NULL,
            user_id {bigint} NOT NULL,
            created_at {real} NOT NULL,
            PRIMARY KEY (guild_id, leader_id, user_id)
        ) {without_rowid}
        """,
    ),
    # 18: map vote and ban (SPEC 10.5): how a queue picks its lobbies' maps; a lobby's way,
    # the maps still in the running, those banned in order, the deadline of the vote or of
    # the ban whose turn it is, and each player's vote.
    (
        "ALTER TABLE queues ADD COLUMN map_pick TEXT NOT NULL DEFAULT 'random'",
        "ALTER TABLE lobbies ADD COLUMN map_pick TEXT NOT NULL DEFAULT 'random'",
        "ALTER TABLE lobbies ADD COLUMN map_candidates TEXT NOT NULL DEFAULT ''",
        "ALTER TABLE lobbies ADD COLUMN map_banned TEXT NOT NULL DEFAULT ''",
        "ALTER TABLE lobbies ADD COLUMN map_deadline {real}",
        "ALTER TABLE lobby_players ADD COLUMN vote TEXT",
    ),
    # 19: the guild setting `language` (SPEC 13): a shipped language code, or 'auto' for the
    # server's preferred locale.
    ("ALTER TABLE guilds ADD COLUMN language TEXT NOT NULL DEFAULT 'auto'",),
    # 20: match rooms (SPEC 10.5): a queue's `rooms` and `waiting_voice`, copied to its
    # lobbies at the pop; the guild setting room_grace_seconds; each lobby's room: its text
    # and voice channels, the members who may see it, its message, and its state (open,
    # closed with the time it is deleted, deleted, or failed: no room could be made).
    (
        "ALTER TABLE guilds ADD COLUMN room_grace_seconds INTEGER NOT NULL DEFAULT 120",
        "ALTER TABLE queues ADD COLUMN rooms TEXT NOT NULL DEFAULT 'none'",
        "ALTER TABLE queues ADD COLUMN waiting_voice {bigint}",
        "ALTER TABLE lobbies ADD COLUMN rooms TEXT NOT NULL DEFAULT 'none'",
        "ALTER TABLE lobbies ADD COLUMN waiting_voice {bigint}",
        """
        CREATE TABLE lobby_rooms (
            guild_id {bigint} NOT NULL REFERENCES guilds (guild_id),
            lobby_id INTEGER NOT NULL,
            state TEXT NOT NULL CHECK (state IN ('open', 'closed', 'deleted', 'failed')),
            text_id {bigint},
            voice_ids TEXT NOT NULL,
            members TEXT NOT NULL,
            message_id {bigint},
            delete_at {real},
            PRIMARY KEY (guild_id, lobby_id)
        ) {without_rowid}
        """,
    ),
    # 21: CHECKs of a column against three values or more, written as comparisons where
    # the engine checks an IN list slowly (SQLite: see Dialect.compare_listed_checks).
    ("@compare_listed_checks",),
)

LISTED_CHECKS: Final = (
    ("matches", "status", ("pending", "disputed", "applied", "void")),
    ("participants", "outcome", ("win", "draw", "loss")),
    ("queues", "mode", ("balance", "captains", "random")),
    ("lobby_rooms", "state", ("open", "closed", "deleted", "failed")),
)
"""(table, column, values) of each CHECK written `column IN (values)` in the migrations
above, with three values or more."""


def migration_statements(number: int, dialect: Dialect) -> list[str]:
    """The statements of migration `number` (from 1) in the dialect's words."""
    words = dialect.schema_words()
    statements: list[str] = []
    for template in MIGRATIONS[number - 1]:
        if template == "@performances_stale":
            statements.extend(dialect.performances_stale_trigger())
        elif template == "@match_ids_sequence":
            statements.extend(dialect.match_ids_sequence())
        elif template == "@participants_room":
            statements.extend(dialect.participants_room())
        elif template == "@log_chunks_storage":
            statements.extend(dialect.log_chunks_storage())
        elif template in (FILL_LOG_CHUNKS, COMPARE_LISTED_CHECKS):
            statements.append(template)
        else:
            statements.append(template.format_map(words).strip())
    return statements


async def migrate(session: Session, number: int) -> None:
    """Run migration `number` (from 1) in the session's transaction."""
    for statement in migration_statements(number, session.dialect):
        if statement == FILL_LOG_CHUNKS:
            await logchunks.fill(session)
        elif statement == COMPARE_LISTED_CHECKS:
            await session.dialect.compare_listed_checks(session, LISTED_CHECKS)
        else:
            await session.run(statement)


def newer_than_this_code(version: int) -> DatabaseUnavailable:
    """Refuses a database a newer ladderbot wrote (before anything is written to it)."""
    return DatabaseUnavailable(
        f"the database is at schema version {version}, newer than this ladderbot "
        f"({len(MIGRATIONS)}): upgrade ladderbot"
    )
