"""Hydra search-path plugin: adds ``pkg://ccexp_plugin_example.conf`` after ccexp's own ``conf/``.

Hydra imports every module under the ``hydra_plugins`` namespace package when
it starts and calls each :class:`SearchPathPlugin` it finds; so once this
package is installed, ``algorithm=vote_linkage`` composes
``ccexp_plugin_example/conf/algorithm/vote_linkage.yaml`` like one of ccexp's
own configs.  Appended, never prepended: a plugin cannot shadow ccexp's files.
"""

from hydra.core.config_search_path import ConfigSearchPath
from hydra.plugins.search_path_plugin import SearchPathPlugin


class CcexpPluginExampleSearchPathPlugin(SearchPathPlugin):
    def manipulate_search_path(self, search_path: ConfigSearchPath) -> None:
        search_path.append(provider="ccexp-plugin-example", path="pkg://ccexp_plugin_example.conf")
