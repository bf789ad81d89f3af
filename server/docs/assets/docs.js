/* global document */
// The /docs/ pages without JavaScript are complete; this only adds a filter over the
// sidebar's links. Loaded with `defer`, after the content.
{
  const nav = document.getElementById('contents');
  const list = nav && nav.querySelector('.toc');
  if (list) {
    const label = document.createElement('label');
    label.className = 'filter';
    label.textContent = 'Filter the contents';
    const input = document.createElement('input');
    input.type = 'search';
    input.autocomplete = 'off';
    label.append(input);
    list.before(label);
    input.addEventListener('input', () => {
      const words = input.value.trim().toLowerCase();
      const matches = (el) => !words || el.textContent.toLowerCase().includes(words);
      for (const group of list.children) {
        // A group whose own name matches keeps all its links.
        const whole = matches(group.firstElementChild);
        let any = whole;
        for (const item of group.querySelectorAll('li')) {
          item.hidden = !(whole || matches(item));
          any ||= !item.hidden;
        }
        group.hidden = !any;
      }
    });
  }
}
