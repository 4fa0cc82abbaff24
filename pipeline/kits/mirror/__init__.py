"""The CDN mirror: public-CDN URLs an app requests (jsDelivr, unpkg, cdnjs, esm.sh,
Skypack, the Tailwind Play CDN) answered from npm packages fetched from the registry
and cached, and the hermetic router that sends every other request nowhere.

``routing`` (the Playwright router), ``cdn`` (URL → package file), ``cdnjs`` (cdnjs
names → npm names), ``npm`` (the registry client and package cache), ``semver``
(version ranges), ``mediatypes`` (file suffix → content type). It must not import
contracts or stages.
"""
