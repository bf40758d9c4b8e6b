"""Every way a result leaves rankscope: trec_eval's text (`trec`), ndeval's CSV (`ndeval`),
aligned tables, CSV, Markdown, LaTeX and JSON (`tables`, the one renderer), the LaTeX
table of means with significance superscripts (`latex`), TREC and Parquet files (`files`),
the measure reference (`reference`)."""
