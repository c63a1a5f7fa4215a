// MathJax 3 configuration for pymdownx.arithmatex (generic mode): typeset only the spans and
// blocks that arithmatex marks, with the delimiters it writes. Loaded before tex-chtml-full.js,
// which the site serves itself (docs/hooks/mathjax.py); no menu, no lazy loading.
window.MathJax = {
  tex: {
    inlineMath: [["\\(", "\\)"]],
    displayMath: [["\\[", "\\]"]],
    processEscapes: true,
    processEnvironments: true,
  },
  options: {
    ignoreHtmlClass: ".*|",
    processHtmlClass: "arithmatex",
    enableMenu: false,
  },
};
