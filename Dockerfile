# ladderbot: the Discord bot (and its web pages). docs/deployment.md "Docker" has the steps:
#   docker build -t ladderbot .
#   mkdir data && cp config.example.toml data/config.toml   # edit it; its paths are relative to /data
#   sudo chown 10001:10001 data                             # the image runs as uid 10001
#   docker run -d -e DISCORD_TOKEN=... -v "$PWD/data:/data" -p 8080:8080 ladderbot
# Other commands run the same way: docker run --rm -v "$PWD/data:/data" ladderbot leaderboard --guild ID --config /data/config.toml
FROM python:3.11.13-slim-bookworm

# Fonts for names in any script on the charts: CJK, and emoji (Symbola's outlines are what
# matplotlib can draw; Noto Color Emoji is a bitmap font it cannot).
RUN apt-get update \
    && apt-get install -y --no-install-recommends \
        fonts-noto-cjk fonts-noto-color-emoji fonts-symbola \
    && rm -rf /var/lib/apt/lists/*

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    MPLCONFIGDIR=/tmp/matplotlib \
    LADDERBOT_WEB_HOST=0.0.0.0

WORKDIR /src
COPY pyproject.toml README.md config.example.toml ./
COPY bot ./bot
RUN pip install . && rm -rf /src/build

# The data folder (config, SQLite database, backups) belongs to uid 10001, the image's user.
RUN groupadd --gid 10001 ladderbot \
    && useradd --create-home --uid 10001 --gid 10001 ladderbot \
    && mkdir /data \
    && chown 10001:10001 /data
USER 10001:10001
WORKDIR /data
VOLUME ["/data"]
# The web pages and read API when [web] enabled = true (LADDERBOT_WEB_HOST: on every interface).
EXPOSE 8080

ENTRYPOINT ["ladderbot"]
CMD ["run", "--config", "/data/config.toml"]
