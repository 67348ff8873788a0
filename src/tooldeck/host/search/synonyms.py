"""The words people use for what tools are named: a small, curated synonym table.

Tool names use a few verbs (``create``, ``get``, ``list``, ``update``, ``delete``...)
and the nouns of their API (``message``, ``issue``, ``refund``); people ask in their own
words ("send an email", "open a bug report", "undo a payment"). Each group below says
one thing in several ways, with the reason it exists. A query word in a group also
searches for the group's other one-word members, at ``SYNONYM_WEIGHT`` of a literal
match, so a tool that uses the query's own word still ranks first. A member of several
words ("money back", "how many") is a **phrase**: found in a query (stop words between
its words are skipped), it stands for its group's one-word members and its own words
are not searched on their own ("how many" does not look for ``many``).

Rules for adding a group: general English, never one catalog's tool names; a word may
sit in more than one group when it means both (``open`` a ticket, ``open`` a file);
keep the reason to one line. The table is read once, on first use.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from tooldeck.host.search.terms import joined, term, tokens

SYNONYM_WEIGHT = 0.5
"""A synonym's match counts this much of a literal one."""

ACTIONS: tuple[tuple[str, str], ...] = (
    (
        "create, make, new, add, open, start, compose, build, write, setup, set up, post, send, "
        "buy, book, schedule, upload, spin up, undo payment, reverse payment, reverse charge, "
        "money back, give back",
        "`create` makes something; people add, open, write, send or book it, or undo a payment",
    ),
    (
        "get, show, view, display, see, read, open, fetch, retrieve, look at, detail, inspect, "
        "check, download",
        "catalogs name reading one thing `get`/`read`; people show, view, see or open it",
    ),
    (
        "list, all, every, everything, browse, enumerate, recent, latest, show all",
        "catalogs name many things `list`; people ask for all of them or the recent ones",
    ),
    (
        "search, find, look for, lookup, locate, seek, query",
        "catalogs name finding `search`; people find, look for or ask which one",
    ),
    (
        "update, change, edit, modify, set, rename, alter, adjust, mark, fix, upgrade, "
        "downgrade, assign, reschedule, close, resolve, move to, restock, append, convert, "
        "merge, play, pause, resume, skip, mute",
        "catalogs name changing fields `update`; people change, edit, set, mark or resolve them",
    ),
    (
        "delete, remove, erase, drop, destroy, discard, get rid, throw away, trash, purge, "
        "cancel, wipe, hang up, end",
        "catalogs name removal `delete`; people remove, drop, cancel, trash or get rid of",
    ),
    (
        "archive, hide, shelve, put away, close, retire",
        "`archive` hides without deleting; people close, hide or put away",
    ),
    (
        "restore, undo, undelete, recover, bring back, revert, roll back, rollback, reopen, "
        "unarchive, go back",
        "`restore` brings something back; people undo, recover, revert or reopen it",
    ),
    ("count, how many, number of, total, tally", "`count` answers how many"),
    (
        "export, download, dump, backup, save as, csv",
        "`export` takes data out; people download, dump or back it up",
    ),
    (
        "summarize, summary, overview, recap, sum up, digest, tldr, activity, what happened",
        "`summarize` gives the gist; people ask for an overview or a recap",
    ),
    (
        "watch, subscribe, follow, notify, notify me, alert me, keep an eye, ping me",
        "`watch` sends updates; people subscribe, follow or ask to be notified",
    ),
    (
        "unwatch, unsubscribe, unfollow, mute, silence, snooze, stop notification, stop notify",
        "`unwatch` stops updates; people unsubscribe, mute or silence",
    ),
    ("copy, duplicate, clone", "`copy` makes another one; people duplicate or clone"),
    (
        "move, transfer, relocate, reassign, assign, hand over",
        "`move` changes parent or owner; people transfer, reassign or hand over",
    ),
    (
        "share, grant, give access, invite, allow, permit",
        "`share` gives others access; people grant, invite or allow",
    ),
    (
        "history, changelog, change log, audit, timeline, over time, who changed, log",
        "`history` shows past changes; people ask who changed what, over time",
    ),
    (
        "validate, check, verify, lint, sanity check, inspect",
        "`validate` checks without changing; people check or verify",
    ),
    (
        "link, attach, connect, associate, reference, relate",
        "`link` ties two items; people attach, connect or reference",
    ),
    ("bulk, many, batch, mass, at once, in bulk", "`bulk` changes many at once"),
    ("run, execute, launch, invoke, command", "running a program: people run, execute or launch"),
    ("shell, terminal, command line, console, bash, cli", "one place commands run"),
    ("replace, substitute, swap, edit", "changing text in place"),
)
"""What tools do: the verbs catalogs name tools with, and what people say instead."""

THINGS: tuple[tuple[str, str], ...] = (
    (
        "message, email, e-mail, mail, gmail, mailbox, inbox, sms, dm, text message, direct "
        "message, msg, chat",
        "a message is what people send, by mail, text or chat",
    ),
    ("thread, conversation", "an exchange of messages"),
    (
        "issue, bug, bug report, defect, ticket, story, problem, feature request",
        "trackers call a reported problem an issue; people say bug or ticket",
    ),
    (
        "ticket, case, support request, complaint, inquiry, support",
        "help desks call a customer's request a ticket or a case",
    ),
    ("incident, outage, down, site down, disruption, emergency", "an outage is an incident"),
    (
        "alert, warning, alarm, monitor",
        "a rule that warns is an alert (monitoring tools call it a monitor)",
    ),
    (
        "oncall, pager, rota, rotation, shift, duty, escalation",
        "who is on call: a rota, a shift, a pager",
    ),
    (
        "refund, money back, reimburse, undo payment, reverse payment, reverse charge, give back",
        "a refund undoes a payment",
    ),
    ("payment, pay, charge, transaction, billing, card", "money taken is a payment or a charge"),
    ("invoice, bill", "an invoice is a bill"),
    ("subscription, membership, recurring", "a subscription is a plan paid again and again"),
    ("customer, client, buyer, shopper, purchaser, consumer", "who buys"),
    (
        "company, organization, org, business, account, firm",
        "CRMs call a company an account or an organization",
    ),
    (
        "user, member, person, people, coworker, colleague, teammate, agent, employee, staff, "
        "contact",
        "a person, however the system names them",
    ),
    ("deal, opportunity, sale, sales", "CRMs call a deal an opportunity"),
    ("lead, prospect", "a lead is a prospect"),
    (
        "event, meeting, appointment, standup, call",
        "a calendar entry is an event; people say meeting or appointment",
    ),
    ("calendar, agenda, schedule, diary", "where events are kept"),
    ("freebusy, free, busy, available, availability, open slot", "free/busy is availability"),
    ("repository, repo, codebase", "a repository, shortened"),
    (
        "pullrequest, pr, change request, code review",
        "a pull request (or merge request) proposes changes",
    ),
    ("workflow, workflow run, build, ci, pipeline, job, check run", "a CI run is a build"),
    ("folder, directory, dir", "one container, two names"),
    ("file, document, doc, spreadsheet, sheet, pdf, report", "a stored document is a file"),
    ("page, website, site, url, html, webpage", "what a browser shows"),
    (
        "route, direction, directions, drive, walk, navigate, commute, travel",
        "getting from A to B is a route",
    ),
    ("distance, how far, far, mile, km", "how far is a distance"),
    ("geocode, coordinate, coordinates, latitude, longitude, gps, lat, lng", "a place as numbers"),
    ("place, shop, restaurant, cafe, coffee, venue, business, nearby, near", "somewhere to go"),
    ("forecast, rain, snow, prediction, outlook", "what the weather will do"),
    (
        "observation, temperature, wind, humidity, current condition",
        "what the weather is doing now",
    ),
    ("storm, severe, hurricane, tornado, warning", "dangerous weather"),
    ("query, sql, select statement", "asking a database"),
    ("column, field, attribute", "one value of a record"),
    ("role, database user, grant", "who may connect to a database"),
    ("inventory, stock, quantity, in stock, left in stock", "how many items a store has"),
    ("product, sku, merchandise", "what a store sells"),
    ("price, cost, pricing", "what something costs"),
    ("order, purchase, purchase history", "what a customer bought"),
    ("reaction, react, emoji, thumbs up", "a reply without words"),
    (
        "playback, play, pause, resume, skip, next song, volume, now playing, playing",
        "controls of what is playing",
    ),
    ("track, song, tune, music", "one piece of music"),
    ("artist, band, singer, musician", "who made the music"),
    ("todo, to-do, checklist, task list, step", "a list of things to do"),
    ("question, ask, choose, decide, pick, prefer, option", "asking the user to decide"),
    ("greet, hello, hi, hey, welcome, say hi, say hello", "saying hello"),
    ("diff, change, modified, unstaged, uncommitted, edit", "what changed in the working tree"),
    ("status, clean, dirty, current branch, staged", "the state of the working tree"),
    ("commit, changeset, revision", "one recorded change"),
    ("revision, version, earlier version, previous version", "an earlier state of a document"),
    ("permission, access, acl, policy, allowed, who can", "who may do what"),
    ("lifecycle, retention, expire, expiry, automatically delete", "rules that age data out"),
    ("bucket, storage, cloud storage", "where objects are stored"),
    ("upload, put, push", "sending a file up"),
    ("team, group, squad, department", "people working together"),
    ("comment, reply, remark", "words added to something"),
    ("label, tag, category", "a mark to sort by"),
    ("macro, canned response, template, saved reply", "a prepared answer"),
    ("dashboard, graph, chart, visualization", "a picture of numbers"),
    ("metric, cpu, memory, latency, error rate, throughput, stat", "numbers a system reports"),
    ("sprint, cycle, iteration", "a time box of work"),
    ("board, kanban, scrum board", "where work items move"),
    ("transition, done, in progress, status change", "moving a work item to another state"),
    ("phone number, number, phone", "what a call or text goes to"),
    (
        "grep, search code, text in files, find text, regex, regular expression",
        "finding text inside files",
    ),
    ("glob, find files, file name, pattern, wildcard", "finding files by name"),
)
"""What tools act on: nouns people say differently."""

GROUPS = ACTIONS + THINGS

LOOKUP = ("get", "list", "search", "show", "find", "read", "view")
"""What a question, or a request that names no action, asks for: to see something
("what's on my agenda today", "storm warnings near me")."""

MAKE = ("create", "add", "new", "make", "send", "post")
"""What a request that opens with a noun used as a verb asks for ("pin a message",
"charge a card", "email the team"): to make one (``query.py``)."""

_DETERMINERS_TEXT = "a an the my our your his her their this that these those some another"
DETERMINERS = frozenset(_DETERMINERS_TEXT.split())
"""Words that open a noun phrase: right after a request's first word they show that
word is a verb ("pin a message"), not part of what is named ("storm warnings")."""

_QUESTION_WORDS_TEXT = "what whats which who whose where when how is are do does did can"
QUESTION_WORDS = frozenset(_QUESTION_WORDS_TEXT.split())
"""A query starting with one of these is a question: it asks to see (``LOOKUP``)."""


@dataclass(frozen=True, slots=True)
class Table:
    """``GROUPS`` normalized to terms (``table()``)."""

    members: tuple[tuple[str, ...], ...]
    """Each group's one-word members, by group number (its place in ``GROUPS``)."""
    groups: dict[str, tuple[int, ...]]
    """A term → the groups it is a one-word member of."""
    phrases: dict[tuple[str, ...], tuple[int, ...]]
    """A phrase's terms (stop words kept) → the groups it is a member of."""
    starts: dict[str, tuple[tuple[str, ...], ...]]
    """A term → the phrases starting with it, longest first (then in table order)."""
    actions: frozenset[int]
    """The groups of ``ACTIONS``: a query with none of them gets ``LOOKUP``."""
    lookup: tuple[str, ...]
    """``LOOKUP`` as terms."""
    make: tuple[str, ...]
    """``MAKE`` as terms."""


def member_terms(member: str) -> tuple[str, ...]:
    """A member as the terms a query has (joins applied, stop words kept, stems)."""
    return tuple(term(t) for t in joined(tokens(member)))


@lru_cache(maxsize=1)
def table() -> Table:
    """``GROUPS`` normalized (built on first use)."""
    members: list[tuple[str, ...]] = []
    groups: dict[str, list[int]] = {}
    phrases: dict[tuple[str, ...], list[int]] = {}
    for number, (listed, _why) in enumerate(GROUPS):
        split = [member_terms(m) for m in listed.split(",") if m.strip()]
        members.append(tuple(dict.fromkeys(t[0] for t in split if len(t) == 1)))
        for terms in split:
            into = (
                groups.setdefault(terms[0], [])
                if len(terms) == 1
                else phrases.setdefault(terms, [])
            )
            if number not in into:
                into.append(number)
    starts: dict[str, list[tuple[str, ...]]] = {}
    for phrase in phrases:
        starts.setdefault(phrase[0], []).append(phrase)
    return Table(
        tuple(members),
        {k: tuple(v) for k, v in groups.items()},
        {k: tuple(v) for k, v in phrases.items()},
        {k: tuple(sorted(v, key=len, reverse=True)) for k, v in starts.items()},
        frozenset(range(len(ACTIONS))),
        tuple(term(t) for t in LOOKUP),
        tuple(term(t) for t in MAKE),
    )
