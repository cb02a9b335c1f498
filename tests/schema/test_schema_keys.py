"""The schema's keys are validated when it loads: a bad value is a
configuration error (exit 2) that names the key, never a traceback."""
import re

import pytest

from conftest import run_cli, write

NOTE = "---\nid: NOTE-001\ntitle: A note\nstatus: draft\n---\n"


def _project(tmp_path, schema_text: str | None, config: str = 'schema = "schema.yaml"\n'):
    (tmp_path / "recordkit.toml").write_text(config, encoding="utf-8")
    if schema_text is not None:
        (tmp_path / "schema.yaml").write_text(schema_text, encoding="utf-8")
    write(tmp_path, "records/note/NOTE-001.md", NOTE)
    return tmp_path


@pytest.mark.parametrize("schema_text, named", [
    ("id_pattern: '^(?P<kind>[A-Z]+-(?P<number>[0-9]+$'\n", "id_pattern"),
    ("id_pattern: 42\n", "id_pattern"),
    ("id_from: ['field:']\n", "id_from[0]"),
    ("id_from: [filename]\n", "id_from[0]"),
    ("id_from: {field: id}\n", "id_from"),
    ("title_from: [h2]\n", "title_from[0]"),
    ("kind_from: [{type: x}]\n", "kind_from[0]"),
    ("kind_from: [{field: type, folder: 1}]\n", "kind_from[0]"),
    ("kind_from: [{field: type, map: {decision: ADR}}]\n", "kind_from[0].map"),
    ("kind_from: [{folder: 0}]\n", "kind_from[0].folder"),
    ("kind_from: [{prefix: ''}]\n", "kind_from[0].prefix"),
    ("kind_from: [{default: NOPE}]\n", "kind_from[0].default"),
    ("kind_from: [{pattern: kind, map: {a: NOTE}}]\n", "kind_from[0]"),
    ("kind_from: oops\n", "kind_from"),
    ("links: {resolve: [id, name]}\n", "links.resolve"),
    ("links: {case_sensitive: maybe}\n", "links.case_sensitive"),
    ("links: {wikilink_order: backwards}\n", "links.wikilink_order"),
    ("links: {resolv: [id]}\n", "links"),
    ("links: [id]\n", "links"),
    ("tags: {pattern: '[a-'}\n", "tags.pattern"),
    ("tags: {patern: x}\n", "tags"),
    ("claims_table: {kinds: [NOTE, ESSAY]}\n", "claims_table.kinds"),
    ("derive:\n  - {relation: cites, field: status, pattern: 'superseded by (.+)'}\n", "derive[1].pattern"),
    ("derive:\n  - {relation: cites, field: status, pattern: '(?P<target>'}\n", "derive[1].pattern"),
    ("derive:\n  - {relation: cites, from_field: references}\n", "derive[1].match_fields"),
    ("derive:\n  - {relation: cites, fild: status, pattern: x}\n", "derive[1]"),
    ("fields:\n  created: {type: date, epoch: days}\n", "fields.created.epoch"),
    ("fields:\n  n: {type: integer, epoch: ms}\n", "fields.n.epoch"),
    ("extends: 12\n", "extends"),
    ("kinds_from: [{default: NOTE}]\n", "unknown key kinds_from (did you mean kind_from?)"),
    ("titel_from: [h1]\n", "unknown key titel_from (did you mean title_from?)"),
    ("colour: red\n", "unknown key colour: the known keys are extends, replace, id_pattern"),
    ("graph: {faded_statues: [dropped]}\n", "graph: unknown key faded_statues (did you mean faded_statuses?)"),
    ("graph: [dropped]\n", "graph must be a mapping"),
    ("graph: {tentative_statuses: draft}\n", "graph.tentative_statuses must be a list"),
    ("mention: {relations: mentions}\n", "mention: unknown key relations (did you mean relation?)"),
    ("claims_table: {colums: [id]}\n", "claims_table: unknown key colums (did you mean columns?)"),
    ("kinds:\n  NOTE: {colour: red}\n", "kinds.NOTE: unknown key colour (did you mean color?)"),
    # a kind's folder is where `new` writes: never outside the record root
    ("kinds:\n  NOTE: {statuses: [draft], dir: ../escaped}\n", "kinds.NOTE.dir must be a folder under the record"),
    ("kinds:\n  NOTE: {statuses: [draft], dir: /etc}\n", "kinds.NOTE.dir must be a folder under the record"),
    ("kinds:\n  NOTE: {statuses: [draft], dir: 'a/../../b'}\n", "kinds.NOTE.dir must be a folder under"),
    ("kinds:\n  NOTE: {statuses: [draft], dir: 'C:\\\\x'}\n", "kinds.NOTE.dir must be a folder under"),
    ("relations:\n  grounds: {acylic: true}\n", "relations.grounds: unknown key acylic (did you mean acyclic?)"),
    ("relations:\n  grounds: [NOTE]\n", "relations.grounds must be a mapping"),
    ("pages: {README.md: true}\n", "pages"),
    ("pages: [README.md, '']\n", "pages[1]"),
    ("unique: [id]\n", "unique[0]"),
    ("unique: ['pattern:serial']\n", "unique[0]"),
    ("unique: ['field:id', 'field:id']\n", "unique"),
    # found by test_any_schema_value_is_a_diagnostic_not_a_traceback (each was a traceback)
    ("kinds:\n  NOTE: {statuses: true}\n", "kinds.NOTE.statuses must be a list of names"),
    ("kinds:\n  NOTE: {statuses: [draft], fields: 5}\n", "kinds.NOTE.fields must be a mapping"),
    ("kinds:\n  NOTE: {statuses: [draft], dir: 1.5}\n", "kinds.NOTE.dir must be a string"),
    ("kinds:\n  NOTE: {statuses: [draft], sections: [{statuses: [x]}]}\n", "kinds.NOTE.sections: each section"),
    ("relations:\n  cites: {from: 5}\n", "relations.cites.from must be a list of names"),
    ("relations:\n  cites: {max: ''}\n", "relations.cites.max must be a whole number"),
    ("fields: ['[']\n", "fields must be a mapping"),
    ("fields: {pattern: null}\n", "fields.pattern must be a mapping of the field's options"),
    ("broken_statuses: true\n", "broken_statuses must be a list of names"),
    ("mention: {label: 5}\n", "mention.label must be a string"),
    ("claims_table: {strengths: 3}\n", "claims_table.strengths must be a list of names"),
    ("fields: {title: {type: strin}}\n", "schema.yaml: field title of kind"),
    ("fields: {n: {minimum: a}}\n", "schema.yaml: field n of kind"),
    ("fields: {n: {items: {pattern: '('}}}\n", "items.pattern"),
])
def test_a_bad_value_is_a_configuration_error_naming_the_key(tmp_path, schema_text, named):
    # derive lists replace the default's one rule: index 1 is after a good one
    if schema_text.startswith("derive:"):
        schema_text = schema_text.replace("derive:\n", "derive:\n  - {relation: cites, from_field: references, "
                                          "match_fields: [doi]}\n")
    folder = _project(tmp_path, schema_text)
    p = run_cli("lint", "--no-cache", cwd=folder)
    assert p.returncode == 2, p.stdout + p.stderr
    assert "Traceback" not in p.stderr
    assert p.stderr.startswith("recordkit: configuration error:"), p.stderr
    assert named in p.stderr, p.stderr


def test_a_bad_id_pattern_names_the_regex_error(tmp_path):
    folder = _project(tmp_path, "id_pattern: '^(?P<kind>[A-Z]+'\n")
    p = run_cli("graph", "--format", "json", cwd=folder)
    assert p.returncode == 2
    # recordkit's words, then Python's re message (its wording is the Python version's)
    assert re.search(r"id_pattern \^\(\?P<kind>\[A-Z\]\+ is not a valid regular expression: \S", p.stderr), p.stderr


@pytest.mark.parametrize("pattern", [r"^[A-Z]+-\d+$", r"^(?P<number>\d{4})-.*$", r"^(?P<kind>[A-Z]+)-.*$"])
def test_id_pattern_groups_are_optional(tmp_path, pattern):
    folder = _project(tmp_path, f"id_pattern: '{pattern}'\n")
    p = run_cli("lint", "--no-cache", "--format", "json", cwd=folder)
    assert p.returncode in (0, 1), p.stderr
    assert "Traceback" not in p.stderr


def test_no_id_pattern_at_all(tmp_path):
    folder = _project(tmp_path, "id_pattern: null\nkind_from: [{folder: 1}]\n")
    write(folder, "records/note/free-form name.md", "---\ntitle: x\nstatus: draft\n---\n")
    p = run_cli("graph", "--format", "json", cwd=folder, check=True)
    assert '"id": "free-form name"' in p.stdout and '"kind": "NOTE"' in p.stdout


def test_rk105_and_rk106_name_the_schema_pattern(tmp_path):
    folder = _project(tmp_path, "id_pattern: '^ADR-\\d{4}$'\nkind_from: [{default: NOTE}]\n")
    write(folder, "records/note/ADR-0002.md", "---\nid: ADR-0003\ntitle: x\nstatus: draft\n---\n")
    p = run_cli("lint", "--no-cache", "--select", "RK105,RK106", cwd=folder)
    assert "RK105 `id` `NOTE-001` does not match the id pattern ^ADR-\\d{4}$" in p.stdout, p.stdout
    assert "RK106 `id` ADR-0003 differs from the file name ADR-0002.md" in p.stdout
    assert "KIND-NNN" not in p.stdout


def test_rk105_research_wording_is_kept(tmp_path):
    folder = _project(tmp_path, None, config="")
    write(folder, "records/note/NOTE-2.md", "---\nid: NOTE-2\ntitle: x\nstatus: draft\n---\n")
    p = run_cli("lint", "--no-cache", "--select", "RK105", cwd=folder)
    assert "RK105 `id` `NOTE-2` is not of the form KIND-NNN (at least three digits)" in p.stdout, p.stdout


def test_an_id_from_the_file_name_is_checked_against_the_pattern(tmp_path):
    folder = _project(tmp_path, "id_from: [stem]\nid_pattern: '^\\d{4}-[a-z-]+$'\nkind_from: [{default: NOTE}]\n")
    write(folder, "records/note/0001-good-name.md", "---\ntitle: x\nstatus: draft\n---\n")
    p = run_cli("lint", "--no-cache", "--select", "RK105,RK106", cwd=folder)
    assert "NOTE-001.md:1:1: RK105 id `NOTE-001` (from the file name) does not match the id pattern" in p.stdout
    assert "0001-good-name" not in p.stdout


def test_a_non_string_config_schema_is_a_configuration_error(tmp_path):
    folder = _project(tmp_path, None, config="schema = 3\n")
    p = run_cli("lint", cwd=folder)
    assert p.returncode == 2 and "schema must be a string" in p.stderr


# -- fuzz: a value of any shape under every key ------------------------------

from hypothesis import HealthCheck, given, settings, strategies as st  # noqa: E402

_TOP = ("id_pattern", "id_from", "kind_from", "title_from", "front_matter", "pages", "links", "tags",
        "claims_table", "derive", "mention", "broken_statuses", "unique", "graph", "fields", "kinds",
        "relations", "extends", "replace")
_KIND = ("statuses", "fields", "sections", "description", "color", "dir")
_RELATION = ("from", "to", "max", "min", "required", "required_when", "acyclic", "symmetric", "builds_on",
             "label", "color")
_LEAF = st.sampled_from([None, True, 5, -1, 1.5, "x", "", "[", "(?P<x", "NOTE", "LIT-001", "preset:nosuch",
                         "date", "strin", "string", "integer"])
_ANY = st.recursive(_LEAF, lambda inner: st.one_of(
    st.lists(inner, max_size=3),
    st.dictionaries(st.sampled_from(["a", "pattern", "field", "map", "relation", "label", "resolve", "type",
                                     "statuses", "NOTE", "from", "minimum", "items", "title"]), inner, max_size=3)),
    max_leaves=6)


@pytest.mark.slow
@settings(max_examples=int(__import__("os").environ.get("SCHEMA_EXAMPLES", "40")), deadline=None,
          suppress_health_check=list(HealthCheck))
@given(top=st.dictionaries(st.sampled_from(_TOP), _ANY, max_size=3),
       kind=st.dictionaries(st.sampled_from(_KIND), _ANY, max_size=3),
       relation=st.dictionaries(st.sampled_from(_RELATION), _ANY, max_size=3),
       field_spec=st.dictionaries(st.sampled_from(["type", "minimum", "pattern", "items", "enum", "required"]),
                                  _ANY, max_size=2))
def test_any_schema_value_is_a_diagnostic_not_a_traceback(tmp_path_factory, top, kind, relation, field_spec):
    """A schema file with values of any shape under its keys, a kind's, a
    relation's and a field's: lint, query, build and graph (in this
    process) exit 0, 1 or 2, never with an exception."""
    import os
    import yaml
    from click.testing import CliRunner
    from conftest import MINI_RECORD
    from recordkit.cli import main
    work = tmp_path_factory.mktemp("schema")
    for rel, text in MINI_RECORD.items():
        write(work, rel, text)
    schema = dict(top)
    if kind:
        schema["kinds"] = {"NOTE": {"statuses": ["draft", "final"], **kind}}
    if relation:
        schema["relations"] = {"paper": relation}
    if field_spec:
        schema["fields"] = {"title": field_spec}
    (work / "schema.yaml").write_text(yaml.safe_dump(schema))
    (work / "recordkit.toml").write_text('root = "records"\nchecks = "checks"\nschema = "schema.yaml"\n')
    here = os.getcwd()
    os.chdir(work)
    try:
        for args in (["lint", "--no-cache"], ["query", "SELECT count(*) FROM records"], ["build", "-q"],
                     ["graph", "--format", "json"]):
            res = CliRunner().invoke(main, args, catch_exceptions=True, env={"RECORDKIT_CLEAN_EXIT": "1"})
            exc = res.exception if not isinstance(res.exception, SystemExit) else None
            assert exc is None and res.exit_code in (0, 1, 2), (yaml.safe_dump(schema), args, res.output[-1500:],
                                                                 repr(exc))
    finally:
        os.chdir(here)
