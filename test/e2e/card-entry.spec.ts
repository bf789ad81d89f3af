import type { Page } from '@playwright/test';
import { expect, test, returnTo } from './fixtures';
import {
  cvcInput,
  expectAccessible,
  expiryInput,
  LANGUAGES,
  LAPTOP,
  nameInput,
  numberInput,
  oneLine,
  payButton,
  PHONE,
  statusOf,
  typeInto,
} from './screen';

// Card entry as on a phone's number pad: digits only, formatted as typed with JavaScript,
// accepted as typed without it.

async function typeCardDigits(page: Page) {
  await typeInto(page, numberInput(page), '4242424242424242');
  await typeInto(page, expiryInput(page), '1234');
  await typeInto(page, cvcInput(page), '123');
  await typeInto(page, nameInput(page), 'Ada Lovelace');
}

/** inputmode, autocomplete and placeholders are in place (a Spanish screen). */
async function expectNumericFieldsInSpanish(page: Page) {
  for (const [input, autocomplete] of [
    [numberInput(page), 'cc-number'],
    [expiryInput(page), 'cc-exp'],
    [cvcInput(page), 'cc-csc'],
  ] as const) {
    await expect(input).toHaveAttribute('inputmode', 'numeric');
    await expect(input).toHaveAttribute('autocomplete', autocomplete);
  }
  await expect(expiryInput(page)).toHaveAttribute('placeholder', 'MM / AA');
  await expect(page.getByRole('list', { name: 'Tarjetas aceptadas' })).toContainText('Visa');
}

// Both sizes in one payment: the card is typed at one size, checked (and axe run) there, then
// checked again at the other, where Pay is pressed. Half the languages type on the phone and
// pay on the laptop, the other half the other way round, so each size both takes the typing
// and the Pay press, with and without JavaScript.
const SIZES = [
  ['375×740', PHONE],
  ['1280×800', LAPTOP],
] as const;

for (const javaScriptEnabled of [true, false]) {
  const mode = javaScriptEnabled ? 'with JavaScript' : 'without JavaScript';
  test.describe(`digits only, ${mode}`, () => {
    test.use({ javaScriptEnabled });
    LANGUAGES.forEach((language, i) => {
      const [typedAt, paidAt] = i % 2 === 0 ? SIZES : ([SIZES[1], SIZES[0]] as const);
      test(`${language}: typed digits are formatted at ${typedAt[0]}, still at ${paidAt[0]}, and pay there`, async ({ page, service, merchant, toShop }) => {
        await page.setViewportSize(typedAt[1]);
        const tx = await service.createTransaction(oneLine(merchant, { language }));
        await page.goto(tx.payment_url);
        // The fields' attributes and the accepted cards' list, in Spanish, as the screen loads
        // with JavaScript (before anything is typed).
        if (javaScriptEnabled && language === 'es') await expectNumericFieldsInSpanish(page);
        await typeCardDigits(page);
        for (const [, viewport] of [typedAt, paidAt]) {
          await page.setViewportSize(viewport);
          if (javaScriptEnabled) {
            await expect(numberInput(page)).toHaveValue('4242 4242 4242 4242');
            await expect(expiryInput(page)).toHaveValue('12 / 34');
            // The brand has an accessible name: the number field is described by it.
            await expect(numberInput(page)).toHaveAccessibleDescription('Visa');
          } else {
            // The browser sends the digits as typed; the server accepts them.
            await expect(expiryInput(page)).toHaveValue('1234');
          }
          await expectAccessible(page, javaScriptEnabled);
        }
        await payButton(page).click();
        await toShop(returnTo(`${merchant.origin}/return?order=A-2001`));
        expect(await statusOf(service, tx.id)).toBe('D');
      });
    });
  });
}

test.describe('formatting details', () => {
  test.use({ viewport: PHONE });

  // Three details on one screen, each on fields the one before leaves alone or empties
  // first: the American Express number and CVC, then (number emptied) the caret in the
  // middle of a number, then the expiry.
  test('American Express: 4-6-5 groups, a 4-digit CVC on the front; editing in the middle of the number keeps the caret after the typed digit; a pasted "12/2034" becomes "12 / 34", Backspace removes the separator', async ({ page, service, merchant }) => {
    const tx = await service.createTransaction(oneLine(merchant));
    await page.goto(tx.payment_url);
    await typeInto(page, numberInput(page), '378282246310005');
    await expect(numberInput(page)).toHaveValue('3782 822463 10005');
    await expect(numberInput(page)).toHaveAccessibleDescription('American Express');
    await expect(cvcInput(page)).toHaveAccessibleDescription(/4 digits, on the front/);
    await typeInto(page, cvcInput(page), '12345');
    await expect(cvcInput(page)).toHaveValue('1234');
    await expectAccessible(page, true);

    await numberInput(page).fill('');
    await expect(numberInput(page)).toHaveValue('');
    await typeInto(page, numberInput(page), '42424242');
    await expect(numberInput(page)).toHaveValue('4242 4242');
    // Caret after the first group ("4242| 4242"), then a digit: regrouped, caret after it.
    await numberInput(page).evaluate((input: HTMLInputElement) => input.setSelectionRange(4, 4));
    await page.keyboard.type('1');
    await expect(numberInput(page)).toHaveValue('4242 1424 2');
    expect(await numberInput(page).evaluate((input: HTMLInputElement) => input.selectionStart)).toBe(6);
    await page.keyboard.type('9');
    await expect(numberInput(page)).toHaveValue('4242 1942 42');

    await expect(expiryInput(page)).toHaveValue('');
    await expiryInput(page).fill('12/2034');
    await expect(expiryInput(page)).toHaveValue('12 / 34');
    await expiryInput(page).fill('');
    await typeInto(page, expiryInput(page), '4');
    await expect(expiryInput(page)).toHaveValue('04 / ');
    await page.keyboard.press('Backspace');
    await expect(expiryInput(page)).toHaveValue('04');
  });

  test('an error shown on leaving a field is announced (a live region, described by it)', async ({ page, service, merchant }) => {
    const tx = await service.createTransaction(oneLine(merchant));
    await page.goto(tx.payment_url);
    await typeInto(page, numberInput(page), '4242424242424241');
    await page.keyboard.press('Tab');
    const error = page.locator('#field-card_number-error');
    await expect(error).toHaveText('Enter a valid card number.');
    await expect(error).toHaveAttribute('aria-live', 'polite');
    await expect(numberInput(page)).toHaveAccessibleDescription(/Enter a valid card number/);
  });
});
