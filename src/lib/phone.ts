import { isSupportedCountry, parsePhoneNumberFromString, type CountryCode } from 'libphonenumber-js/min';
import { parsePhoneNumberFromString as parseValidated } from 'libphonenumber-js/max';

const DECIMAL = /\p{Nd}/u;
const NOT_ASCII_DIGIT = /[^\P{Nd}0-9]/gu;

/**
 * ASCII digits for every decimal digit: NFKC folds fullwidth and mathematical digits, and the
 * others (Arabic-Indic, Persian, Devanagari, ...) are read by their place in their block of ten
 * (Unicode encodes each script's digits as one contiguous run from 0 to 9).
 */
function asciiDigits(text: string): string {
  return text.normalize('NFKC').replace(NOT_ASCII_DIGIT, (d) => {
    let zero = d.codePointAt(0)!;
    while (DECIMAL.test(String.fromCodePoint(zero - 1))) zero--;
    return String((d.codePointAt(0)! - zero) % 10);
  });
}

/**
 * One customer's phone, however it was typed: E.164 (`+213555123456`) when the number parses as
 * a possible number (international form, or national form with the country given), else its
 * digits. Null when it holds no digit.
 */
export function phoneKey(phone: string | null | undefined, country?: string | null): string | null {
  if (!phone) return null;
  const text = asciiDigits(phone);
  const digits = text.replace(/\D/g, '');
  if (!digits) return null;
  const region = country && isSupportedCountry(country.toUpperCase()) ? (country.toUpperCase() as CountryCode) : undefined;
  // `00` is the international prefix wherever the country is not known to say otherwise.
  const international = /^\s*00/.test(text) && !region ? `+${digits.slice(2)}` : text;
  const parsed = parsePhoneNumberFromString(international, region);
  return parsed?.isPossible() ? parsed.number : digits;
}

/**
 * A shopper's phone as an order keeps it (CONTRACT-3 §17.5): E.164 when it is a valid number in
 * `region` (national form) or anywhere (international form), else null. Full metadata: validity
 * is judged by each country's number patterns, not only their lengths.
 */
export function e164Phone(phone: string, region: string): string | null {
  const text = asciiDigits(phone).trim();
  if (!/\d/.test(text) || text.length > 50) return null;
  const parsed = parseValidated(text, isSupportedCountry(region) ? (region as CountryCode) : undefined);
  return parsed && parsed.isValid() ? parsed.number : null;
}

/** The blocklist's reading of a phone: the same as a checkout's, so an entry matches the orders it names. */
export const e164 = e164Phone;
