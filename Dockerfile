# ladderbot: the Discord bot. The config and the SQLite database live on the /data volume:
#   docker build -t ladderbot .
#   cp config.example.toml data/config.toml     # then edit it (database.path is relative to /data)
#   docker run -d -e DISCORD_TOKEN=... -v "$PWD/data:/data" ladderbot
# Other commands run the same way: docker run --rm -v "$PWD/data:/data" ladderbot gr USER --guild ID
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    MPLCONFIGDIR=/tmp/matplotlib

WORKDIR /src
COPY pyproject.toml README.md config.example.toml ./
COPY bot ./bot
RUN pip install . && rm -rf /src/build

RUN useradd --create-home --uid 10001 ladderbot \
    && mkdir /data \
    && chown ladderbot:ladderbot /data
USER ladderbot
WORKDIR /data
VOLUME ["/data"]

ENTRYPOINT ["ladderbot"]
CMD ["run", "--config", "/data/config.toml"]
