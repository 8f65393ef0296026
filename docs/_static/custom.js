// Tables on a phone (issue 36): below 600 px (custom.css) a table's rows
// are stacked, each cell under its column's heading, instead of a table
// wider than the screen.  This names each cell's column.
document.addEventListener("DOMContentLoaded", () => {
  for (const table of document.querySelectorAll(".bd-content table.table")) {
    const heads = [...table.querySelectorAll("thead th")].map((th) => th.textContent.trim());
    if (heads.length < 2) continue;
    for (const row of table.querySelectorAll("tbody tr")) {
      [...row.children].forEach((cell, k) => {
        if (heads[k]) cell.setAttribute("data-label", heads[k]);
      });
    }
    table.classList.add("stackable");
  }
});
