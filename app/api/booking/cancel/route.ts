import { BOOKING_CANCELLED_PAGE, cancelBooking } from '@/lib/forms/booking-cancel';
import { writeRoute } from '@/lib/http/write-route';

export const { POST, GET, PUT, PATCH, DELETE } = writeRoute('bookingCancel', {
  action: cancelBooking,
  accepted: () => ({ ok: true, status: 200, body: { status: 'cancelled' }, redirect: BOOKING_CANCELLED_PAGE }),
});
