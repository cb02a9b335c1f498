"""Every measured constant of the speed work, by name, in one place.

Each figure here was chosen by a measurement on the bench record
(``bench/``); what was measured, and when, is written in
``bench/README.md`` ("Tuning constants"), not here.  A stage never holds
such a figure itself: it names its work (``"parse"``, ``"lint.rules"``, …)
and :mod:`recordkit.runtime.pool` looks the figures up.  Changing one
changes how fast, never what is made.
"""
from __future__ import annotations

# -- when to fork -------------------------------------------------------------

#: below this many items, forking a helper costs more than it saves (unless
#: ``RECORDKIT_JOBS`` asks for helpers)
MIN_FILES = 2000

#: work whose parts are not worth a helper below this many items, whatever
#: ``RECORDKIT_JOBS`` asks (site pages: a part is made of whole search runs)
FLOOR = {"site.render": 200}

#: the most helpers and this process together, whatever the machine has
MAX_JOBS = 4

#: an incremental site build renders in one process when fewer pages than
#: this may change (a helper would cost more: a fork, every file's size)
SITE_FORK_PAGES = 300

# -- how work is split ---------------------------------------------------------

#: the first part's (this process's) weight against one helper's part, by
#: the name of the work (see :func:`recordkit.runtime.pool.split`); 1.0 when
#: a name is not here
FIRST_WEIGHT = {
    "parse": 0.95,          # a helper parses slower per file (first writes to inherited pages)
    "sql.scan": 11 / 9,     # the helper also sends its rows back: 55 % here, 45 % there
}

#: work whose helpers take this share of the items together (the rest is
#: this process's part), by name: this process also has other work to do
HELPERS_SHARE = {
    "lint.rules": 0.5,      # this process also runs the corpus rules
}

#: parsing in a helper: how many files it parses before it sends what it
#: made, and how many of its own files this process parses between looks
#: for a helper's pieces
PARSE_HELPER_PIECE = 250
PARSE_OWN_PIECE = 50

#: documents per search shard (the unit of the site's search index cache)
SITE_SHARD = 256

#: a site helper gives the C heap's free pages back after every this many
#: pages it renders
SITE_TRIM_PAGES = 2000

#: which groups of tables the SQL writer's helper fills, with or without
#: the full-text index (about half the CPU each way; ``checks`` in the
#: helper made this process wait for it)
SQL_HELPER_GROUPS = {True: ("relations", "fields"), False: ("relations",)}

# -- freshness -----------------------------------------------------------------

#: a file changed this close to (or after) the moment its stat was taken may
#: have changed again in the same clock tick: its stat proves nothing, and it
#: is read again ("racy git"; file systems stamp times with a coarse clock,
#: a few ms on Linux, up to 2 s on some)
RACY_NS = 3_000_000_000
