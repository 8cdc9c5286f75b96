"""cowresults: the results model of cow-policy runs (scripts/report/).

One package reads every kind of run directory once (cowresults.model.load)
and every report is a view of what it read: RESULTS.md's sections and its
Findings (results_md.py, cowresults.findings), the plots
(cowresults.plots), the RFC cover letter (cowresults.rfc) and the checks
that documents say what the runs say (cowresults.doccheck). The model of
each run RESULTS.md shows is committed as its digest (cowresults.store,
digests/), so that the runs behind the committed file need not be on the
machine that renders it.
"""
from .model import COMMANDS, Run, from_section, kind, load  # noqa: F401
from .util import POLICIES, BadInput  # noqa: F401
