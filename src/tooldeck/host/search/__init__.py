"""Tool search: the one ranking, which native tools are deferred behind a search, and
what each provider format advertises of them."""
