// The start page: its texts in the page's language and the language switch (common.js).
loadLanguage("index");
