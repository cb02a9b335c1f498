"""SYNTAX: Markdown and its YAML front matter as text, knowing no record.

Front matter with the position of every key and value (``frontmatter``) and
the guards every YAML text a user gives goes through (``yamlguard``); the
CommonMark blocks a link is not read in: code ranges, fences, lists,
comments, suppressions (``blocks``); link syntax: wikilinks, Markdown links,
definitions, sigils, tags, attachments (``links``); the headings and blocks
a link can name (``anchors``), a body's sections and tables (``sections``);
the Markdown engine (``native``: pulldown-cmark's events, walked once with
recordkit's syntax, into HTML and anchors).  Every stage may import it; it imports
nothing of the stages (only ``common``).
"""
