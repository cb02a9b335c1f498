"""The site's outputs, one module each (Quartz's emitters): each has an
``emit(ctx)`` and, where an incremental build does less than a cold one,
a ``partial(ctx, changes)``; :mod:`..build` calls them in order.

- :mod:`.record_pages`: a page per published record (with the search
  postings and the text and preview fragments of each record rendered);
- :mod:`.lists`: the home page and the list pages, with :mod:`.feed`
  (``feed.xml``, ``sitemap.xml``);
- :mod:`.search`: ``assets/search-index.js``, from runs kept in the cache folder;
- :mod:`.previews`: the text and preview buckets;
- :mod:`.graph`: ``graph.html``;
- :mod:`.assets`: ``assets/`` (scripts, styles, fonts).
"""
