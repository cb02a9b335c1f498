"""The lint rules, one module per family: ``files`` (RK1xx), ``fields``
(RK2xx), ``relations`` (RK3xx), ``lifecycle`` (RK4xx), ``checks`` (RK5xx),
``tables`` (RK6xx), ``queries`` (RK7xx).  :func:`recordkit.lint.registry.all_rules` imports every
module of this folder; a rule registers itself with
:func:`recordkit.lint.registry.rule`.
"""
