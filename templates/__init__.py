"""Jinja2 templates and page assets, shipped inside the wheel as recordkit.templates."""
