"""The record schema as data: kinds, fields, statuses, relations.

The default schema ships as ``default.yaml`` beside this module.  A user file
is merged over it (see :func:`load_schema`), so a record with a new kind or
relation works without code changes.

The package is split by job; every name is importable from here:

- :mod:`.model`: :class:`Schema` and its parts (:class:`Kind`,
  :class:`Relation`, :class:`Section`, :class:`KindSource`,
  :class:`LinkSettings`, :class:`DerivePattern`) and its lookups;
- :mod:`.validate`: a schema file as YAML reads it, checked key by key
  (:class:`SchemaError`);
- :mod:`.layers`: the default schema, presets, ``extends:``, merging,
  :func:`load_schema`;
- :mod:`.values`: colours, dates, dates as seconds since 1970;
- :mod:`.infer`: a schema guessed from a folder of notes (``recordkit init``).
"""
from __future__ import annotations

from .layers import (PRESET_PREFIX, config_layers, default_schema_raw, is_preset, load_schema, preset_names,
                     schema_fingerprint_texts, schema_layers, schema_skip_dirs)
from .model import DerivePattern, Kind, KindSource, LinkSettings, Relation, Schema, Section
from .validate import (DEFAULT_ID_PATTERN, DEFAULT_TAG_PATTERN, KIND_KEYS, LINK_SOURCES, RELATION_KEYS,
                       SUB_KEYS, TOP_KEYS, WIKILINK_ORDERS, SchemaError)
from .values import CSS_COLOR_NAMES, EPOCH_WORDS, epoch_date, is_date_text, is_placeholder, valid_color

__all__ = ["Schema", "SchemaError", "Relation", "Kind", "Section", "KindSource", "LinkSettings", "DerivePattern",
           "load_schema", "preset_names", "schema_layers"]
