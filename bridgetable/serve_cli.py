"""``bridgetable serve``: the service under uvicorn, on SQLite by default, with simulated tables on request.

At start-up it says where the tablets in the room reach it (the machine's outward address, found without
sending anything) and, when the database already holds a session, asks whether to resume it (``--resume`` /
``--new`` answer in advance; without a terminal and without a flag it resumes and says so). A new session moves
the old database aside (``service/store/earlier_journal.py``), never deletes it."""
from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
import socket
import sys
from typing import Any

import click

ANY_ADDRESS = ("0.0.0.0", "::", "")


def lan_address() -> str:
    """The address other machines on the network reach this one at: the source address the system would use
    towards a public address (a UDP ``connect`` sends no packet), else the host name's, else ``localhost``."""
    for target in ("192.0.2.1", "10.255.255.255"):          # TEST-NET-1 and a private address: nothing is sent
        try:
            with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
                s.connect((target, 9))
                addr = str(s.getsockname()[0])
                if addr and not addr.startswith("127.") and addr != "0.0.0.0":
                    return addr
        except OSError:
            continue
    try:
        addr = socket.gethostbyname(socket.gethostname())
        if not addr.startswith("127."):
            return addr
    except OSError:
        pass
    return "localhost"


def _choose_session(database: str, choice: str | None) -> None:
    """Resume or start anew when ``database`` already holds a session (see the module's docstring)."""
    from service.store.earlier_journal import earlier_session, move_aside

    earlier = earlier_session(database)
    if earlier is None:
        return
    what = f"the session of {earlier.started} with {earlier.tables} table{'' if earlier.tables == 1 else 's'}"
    if choice is None and sys.stdin.isatty():
        choice = "resume" if click.confirm(f"Resume {what}?", default=True) else "new"
    if choice == "new":
        moved = move_aside(database)
        click.echo(f"new session: {what} was moved to {moved}")
    elif choice == "resume":
        click.echo(f"resuming {what}")
    else:
        click.echo(f"resuming {what} (not on a terminal; --new starts a new session)")


@click.command("serve")
@click.option("--config", "config", type=click.Path(exists=True, dir_okay=False), help="TOML or JSON configuration")
@click.option("--simulate", type=click.IntRange(0, 1000), default=None, help="number of simulated tables")
@click.option("--host", default="127.0.0.1", show_default=True)
@click.option("--port", default=8000, show_default=True, type=click.IntRange(0, 65535))
@click.option("--db", "database", default=None,
              help="SQLite journal (default: the configuration's, else bridgetable.db)")
@click.option("--pace", type=float, default=None, help="mean seconds between actions at a simulated table")
@click.option("--irregularity-rate", type=click.FloatRange(0, 1), default=None,
              help="share of simulated boards with a seeded irregularity")
@click.option("--ruling-wait", type=float, default=None, help="seconds simulated players wait for a ruling")
@click.option("--seed", type=int, default=None, help="deals and seeded irregularities")
@click.option("--spectator-delay", type=float, default=None, help="seconds of delay for spectators")
@click.option("--show-token/--hide-token", default=None,
              help="print the director's token at start-up (default: only on a terminal, never into a log file)")
@click.option("--resume", "session_choice", flag_value="resume", default=None,
              help="resume the session the database holds without asking")
@click.option("--new", "session_choice", flag_value="new",
              help="start a new session: the database's earlier session is moved aside (renamed), never deleted")
@click.option("--dataconnector", "dataconnector", is_flag=True, default=False,
              help="serve the scoring program's Data Connector endpoint (docs/data-connector.md); without "
                   "--dc-licence-key a key is made once and kept in the database")
@click.option("--dc-club-id", default=None, help="the club id the scoring program sends (turns the endpoint on)")
@click.option("--dc-licence-key", default=None, help="the licence key the scoring program sends")
@click.option("--dc-port", default=None, type=click.IntRange(0, 65535), help="the Data Connector's port (5079)")
@click.option("--log-level", default="info", show_default=True,
              type=click.Choice(["critical", "error", "warning", "info", "debug"]))
def serve(config: str | None, simulate: int | None, host: str, port: int, database: str | None,
          pace: float | None, irregularity_rate: float | None, ruling_wait: float | None,
          seed: int | None, spectator_delay: float | None, show_token: bool | None, session_choice: str | None,
          dataconnector: bool, dc_club_id: str | None, dc_licence_key: str | None, dc_port: int | None,
          log_level: str) -> None:
    """Run the service: REST/WebSocket API, director console, live pages (docs at /docs)."""
    from service.config.settings import ConfigError

    try:
        settings = serve_settings(config, database=database, simulate=simulate, pace=pace,
                                  irregularity_rate=irregularity_rate, ruling_wait=ruling_wait, seed=seed,
                                  spectator_delay=spectator_delay, dataconnector=dataconnector, dc_club_id=dc_club_id,
                                  dc_licence_key=dc_licence_key, dc_port=dc_port, session_choice=session_choice)
    except ConfigError as err:
        raise click.ClickException(str(err)) from None
    if show_token is None:
        show_token = sys.stdout.isatty()
    everywhere = host in ANY_ADDRESS
    shown = lan_address() if everywhere else "localhost" if host.startswith("127.") else host

    def ready(info: dict[str, Any]) -> None:
        base = f"http://{shown}:{port}"
        click.echo(f"bridgetable service: {len(info['tables'])} tables, journal {info['database']} "
                   f"({info['journal_rows']} rows replayed)")
        if everywhere:
            click.echo(f"  listening on every network of this machine ({host or '0.0.0.0'}:{port}); the tablets "
                       f"use {base}. Only this machine: make run HOST=127.0.0.1 (--host 127.0.0.1)")
        else:
            click.echo(f"  listening on {host}:{port} only"
                       + (": the tablets cannot reach it (make run binds every network: HOST=0.0.0.0)"
                          if host.startswith("127.") else ""))
        if show_token:          # in the fragment: the browser keeps it, the server never receives it
            click.echo(f"  director console: {base}/console#token={info['director_token']}")
            click.echo(f"  director token:   {info['director_token']}")
        else:
            # output that is not a terminal (a log file, a service manager) never gets the token unasked
            click.echo(f"  director console: {base}/console (the token is printed only on a terminal: "
                       "make run SHOW_TOKEN=1, --show-token, or director_token in the configuration)")
        click.echo(f"  table cards:      {base}/cards (each seat's QR code, to print; open it from the console)")
        click.echo(f"  spectators:       {base}/spectate")
        click.echo(f"  live results:     {base}/results")
        click.echo(f"  API docs:         {base}/docs")
        dc = settings.dataconnector
        if dc is not None:
            click.echo(f"  scoring program:  Data Connector at http://{shown}:{dc.port}  club id {dc.club_id}  "
                       f"licence key {dc.licence_key if show_token else '(--show-token)'}")

    logging.basicConfig(level=log_level.upper(), format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    logging.getLogger("transitions").setLevel(max(logging.WARNING, logging.getLogger().level))   # a line per event
    from service import create_app

    app = create_app(settings, on_ready=ready)
    servers = service_servers(app, settings, host=host, port=port, log_level=log_level)
    with contextlib.suppress(KeyboardInterrupt):
        if len(servers) == 1:
            servers[0].run()                        # uvicorn's own run: its event-loop choice, its signals
        else:
            asyncio.run(serve_all(servers))
    if not servers[0].started:
        sys.exit(3)


def serve_settings(config: str | None, *, database: str | None = None, simulate: int | None = None,
                   pace: float | None = None, irregularity_rate: float | None = None, ruling_wait: float | None = None,
                   seed: int | None = None, spectator_delay: float | None = None, dataconnector: bool = False,
                   dc_club_id: str | None = None, dc_licence_key: str | None = None, dc_port: int | None = None,
                   session_choice: str | None = None) -> Any:
    """The settings ``bridgetable serve`` runs on: the configuration file's, with the options over them; the
    earlier session in the database resumed or moved aside (``_choose_session``). Raises ``ConfigError``."""
    from service import load_settings

    settings = load_settings(config, database=database)
    sim = settings.simulation.model_copy(update={k: v for k, v in {
        "tables": simulate, "pace_s": pace, "irregularity_rate": irregularity_rate, "ruling_wait_s": ruling_wait,
        "seed": seed}.items() if v is not None})
    settings = settings.model_copy(update={"simulation": sim})
    if spectator_delay is not None:
        spec = settings.regulation.spectators.model_copy(update={"delay_s": spectator_delay})
        regulation = settings.regulation.model_copy(update={"spectators": spec})
        settings = settings.model_copy(update={"regulation": regulation})
    _choose_session(settings.database, session_choice)
    if dataconnector or dc_club_id or dc_licence_key or dc_port is not None:
        settings = _with_dataconnector(settings, dc_club_id, dc_licence_key, dc_port)
    return settings


def service_servers(app: Any, settings: Any, *, host: str, port: int, log_level: str) -> list[Any]:
    """The uvicorn servers (not started) of ``app`` under the settings' connection limits: the service's, then the
    scoring program's Data Connector on its own port when the settings have it."""
    from service.web.connection_guard import guarded_server

    servers = [guarded_server(app, host=host, port=port, log_level=log_level, limits=settings.limits)]
    dc = settings.dataconnector
    if dc is not None:
        from service.dataconnector.server import create_dc_app
        servers.append(guarded_server(create_dc_app(lambda: app.state.service), host=dc.host or host, port=dc.port,
                                      log_level=log_level, limits=settings.limits))
    return servers


async def serve_all(servers: list[Any]) -> None:
    """Serve ``service_servers`` in the running loop until stopped (the service alone, or with the Data
    Connector: ``_serve_both``)."""
    if len(servers) == 1:
        await servers[0].serve()
    else:
        await _serve_both(*servers)


async def _serve_both(main_server: Any, dc_server: Any) -> None:
    """The service, then (once it runs: the endpoint reads its journal) the Data Connector on its own port; the
    endpoint stops first, so its last queue rows reach the journal before the service closes it."""
    main = asyncio.create_task(main_server.serve())
    while not main_server.started:
        if main.done():
            await main
            return
        await asyncio.sleep(0.05)
    dc = asyncio.create_task(dc_server.serve())
    await asyncio.wait({main, dc}, return_when=asyncio.FIRST_COMPLETED)
    dc_server.should_exit = True
    await asyncio.gather(dc, return_exceptions=True)
    main_server.should_exit = True
    await main


def _with_dataconnector(settings: Any, club_id: str | None, licence_key: str | None, port: int | None) -> Any:
    """The settings with the Data Connector on: the options win over the configuration's ``dataconnector``; a
    missing licence key is made once and kept in the database's meta, so the scoring program's stays valid."""
    from service.config.settings import DataConnectorConfig
    from service.store.journal import Journal

    cfg = settings.dataconnector
    club_id = club_id or (cfg.club_id if cfg else "bridgetable")
    if not licence_key and cfg is None:
        journal = Journal(settings.database, settings.synchronous)
        try:
            licence_key = journal.meta("dc_licence_key")
            if licence_key is None:
                licence_key = secrets.token_hex(8).upper()
                journal.set_meta("dc_licence_key", licence_key)
        finally:
            journal.close()
    update: dict[str, Any] = {"club_id": club_id, **({"licence_key": licence_key} if licence_key else {}),
                              **({"port": port} if port is not None else {})}
    new = cfg.model_copy(update=update) if cfg else DataConnectorConfig.model_validate(update)
    return settings.model_copy(update={"dataconnector": new})
